"""Camera frame -> dice: find each die's top face, count its pips, name its colour."""
