"""gpu_sa.engine.limits: sizes checked before allocating, one line saying how much and how much there is."""
import pytest

from gpu_sa.engine import limits
from gpu_sa.engine.limits import TooLarge, check_cells, check_memory, format_bytes


@pytest.mark.parametrize("nbytes, text", [
    (0, "0 bytes"), (1023, "1023 bytes"), (1024, "1.0 KiB"), (10_522_669_875, "9.8 GiB"), (3 * 2 ** 50, "3.0 PiB")])
def test_format_bytes(nbytes, text):
    assert format_bytes(nbytes) == text


def test_check_memory_names_what_it_needs_and_what_there_is():
    with pytest.raises(TooLarge) as error:
        check_memory(10_522_669_875, "40,000,000 chains", available=int(6.5 * 2 ** 30))
    assert str(error.value) == "40,000,000 chains would need 9.8 GiB, 6.5 GiB available"
    assert isinstance(error.value, ValueError)  # the CLI's one-line error path
    check_memory(2 ** 30, "a gibibyte", available=2 ** 30)  # exactly what there is: fine


def test_check_memory_reads_the_machine():
    available = limits.available_memory()
    assert available is None or available > 0
    if available is None:
        pytest.skip("this system reports no available memory: check_memory refuses nothing here")
    with pytest.raises(TooLarge, match=r"^everything would need [\d.]+ [KMGTPE]iB, [\d.]+ [KMGTPE]iB available$"):
        check_memory(available + 2 ** 40, "everything")
    check_memory(1024, "a kibibyte")


def test_available_memory_falls_back(monkeypatch, tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24684084 kB\nMemAvailable:    2048 kB\n")
    assert limits._meminfo_available(str(meminfo)) == 2048 * 1024
    assert limits._meminfo_available(str(tmp_path / "absent")) is None
    monkeypatch.setattr(limits, "_meminfo_available", lambda: None)
    monkeypatch.setattr(limits, "_cgroup_available", lambda: None)
    monkeypatch.setattr(limits, "_sysconf_available", lambda: 5 * 2 ** 30)
    assert limits.available_memory() == 5 * 2 ** 30
    monkeypatch.setattr(limits, "_sysconf_available", lambda: None)
    assert limits.available_memory() is None
    check_memory(2 ** 60, "anything")  # unknown memory: nothing refused on that ground


def test_a_cgroup_limit_lowers_what_is_available(monkeypatch, tmp_path):
    limit, usage = tmp_path / "memory.max", tmp_path / "memory.current"
    limit.write_text(f"{3 * 2 ** 30}\n")
    usage.write_text(f"{2 ** 30}\n")
    monkeypatch.setattr(limits, "_CGROUP_FILES", ((str(limit), str(usage)),))
    assert limits._cgroup_available() == 2 * 2 ** 30
    monkeypatch.setattr(limits, "_meminfo_available", lambda: 20 * 2 ** 30)
    assert limits.available_memory() == 2 * 2 ** 30
    limit.write_text("max\n")
    assert limits._cgroup_available() is None


def test_check_cells():
    check_cells(1000, 1000, "f:1")
    with pytest.raises(TooLarge, match=r"^f:1: a 99999x99999 grid \(width x height\) has 9,999,800,001 cells; at most "
                                       r"1,000,000 are accepted$"):
        check_cells(99999, 99999, "f:1")
    with pytest.raises(ValueError, match="negative"):
        check_memory(-1, "a negative size")
