import urllib.error

from fetchbot.poller import Poller
from fetchbot.settings import Settings


class FakeResponse:
    def __init__(self, status):
        self.status = status

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_retries_and_timeout_are_used():
    calls = []

    def opener(request, timeout):
        calls.append(timeout)
        raise urllib.error.URLError("down")

    poller = Poller(Settings(timeout=4, retries=2, urls=["http://x"]), opener=opener)
    assert poller.down() == ["http://x"]
    assert calls == [4, 4, 4]


def test_up():
    poller = Poller(Settings(urls=["http://x"]), opener=lambda r, timeout: FakeResponse(204))
    assert poller.down() == []
