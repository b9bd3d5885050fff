"""Take docs/serve.png: `cardenvs serve` on a free port, a watched Dou Dizhu hand a few moves in, in Chromium.

Run from the repository root: ``python docs/screenshot.py`` (needs the dev extra and /usr/bin/chromium).
"""

import socket
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

OUT = Path(__file__).with_name("serve.png")


def main() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "cardenvs", "serve", "--port", str(port)])
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            page.goto(f"{base}/new?mode=play&game=doudizhu&agents=doudizhu.rule&seat=0&seed=7")
            for _ in range(4):  # bid the most (to be the landlord), then play the first move listed a few times
                names = [b.inner_text() for b in page.query_selector_all("button.move")]
                if not names:
                    break
                with page.expect_navigation():
                    page.click("button.move >> nth=-1" if any("bid" in n for n in names) else "button.move >> nth=0")
            page.screenshot(path=str(OUT))
            browser.close()
    finally:
        server.terminate()
        server.wait()
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
