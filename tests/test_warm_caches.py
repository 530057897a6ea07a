"""The warm-up of numba's cache (``tests/warm_caches.py``, started by ``conftest.pytest_configure``) ran every step:
a step that fails (a function renamed, an argument changed) would otherwise only make a fresh clone's suite slower."""
from conftest import warm_up_result


def test_every_step_of_the_warm_up_ran():
    import warm_caches

    status, out, err = warm_up_result()
    assert status == 0, err[-3000:]
    assert [line.split(":")[0] for line in out.splitlines()] == [name for name, _ in warm_caches.STEPS]
