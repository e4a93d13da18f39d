"""Polling the configured endpoints."""
import urllib.error
import urllib.request


class Poller:
    def __init__(self, settings, opener=urllib.request.urlopen):
        self.settings = settings
        self._open = opener

    def check(self, url):
        """Return True if ``url`` answered with a 2xx status."""
        request = urllib.request.Request(url, headers={"User-Agent": self.settings.user_agent})
        for _ in range(self.settings.retries + 1):
            try:
                with self._open(request, timeout=self.settings.timeout) as response:
                    if 200 <= response.status < 300:
                        return True
            except (urllib.error.URLError, TimeoutError):
                pass
        return False

    def down(self):
        return [url for url in self.settings.urls if not self.check(url)]
