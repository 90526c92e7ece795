"""The Pi estimate's measurements (companion bench pi): a reading timed and its work counted, on a rendered tray."""
from companion import bench_pi
from vision import reader


def test_a_measured_reading_counts_every_network_pass_and_leaves_the_reader_as_it_was():
    frame = bench_pi._frame((640, 480), 6)
    plain = reader._net
    measured = bench_pi.measured_read(frame)
    least = bench_pi.network_flops((640, 480), 6)
    assert reader._net is plain
    assert 0 < measured["network_ms"] < measured["ms"]
    # the finder once and each of the six dice at least once
    assert measured["mflop"] >= least["total_mflop"] - 0.1


def test_the_apps_memory_is_measured_apart_from_what_this_process_holds():
    reader.read_frame(bench_pi._frame((640, 480), 6))  # this process now holds the networks
    measured = bench_pi.app_memory(seconds=3.0)
    assert measured["networks_loaded_in_app"] == 0
    assert measured["readings"] >= 1
    assert 0 < measured["peak_rss_mb_reader"] < measured["peak_rss_mb_app_and_reader"]
