"""Drives Assist's low-vision view in Debian's chromium with Playwright (ViewBrowserTests).

Usage: view_browser.py SCENARIO URL OUTPUT_FOLDER. Prints one JSON object: what was seen, for the Swift test to
judge. Never downloads a browser: CHROMIUM names the executable (default /usr/bin/chromium).
"""

import base64
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# The sanitizer lanes run Assist several times slower: every wait here stretches by their scale.
SCALE = max(1.0, min(20.0, float(os.environ.get("ASSIST_TEST_TIME_SCALE", "1") or 1)))


@contextmanager
def one_page(url):
    """Debian's chromium, headless, with one page of 1280 by 1000 opened at `url`; closed after."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(url)
            yield page
        finally:
            browser.close()


def status_of(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10 * SCALE) as answer:
            return answer.status, dict(answer.headers)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers)


def socket_opens(page, address):
    """True when a websocket to `address`, opened from `page`'s origin, opens."""
    return page.evaluate(
        """(address) => new Promise((resolve) => {
            const socket = new WebSocket(address);
            socket.onopen = () => { socket.close(); resolve(true); };
            socket.onerror = () => resolve(false);
            setTimeout(() => resolve(false), 5000);
        })""",
        address,
    )


def security(url, folder):
    base = url.split("?")[0]
    port = base.rstrip("/").rsplit(":", 1)[1]
    token = url.split("token=")[1]
    result = {}
    result["page"], headers = status_of(url)
    result["policy"] = headers.get("Content-Security-Policy", "")
    result["no_token"], _ = status_of(base)
    result["wrong_token"], _ = status_of(base + "?token=" + "0" * len(token))
    result["other_host"], _ = status_of(url, {"Host": f"assist.example:{port}"})
    result["asset"], _ = status_of(base + "assets/view.js")
    result["unknown_asset"], _ = status_of(base + "assets/../../etc/passwd")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector("#choices button")
        result["socket_with_token"] = socket_opens(page, f"ws://127.0.0.1:{port}/socket?token={token}")
        result["socket_without_token"] = socket_opens(page, f"ws://127.0.0.1:{port}/socket")
        # Another origin: a page served elsewhere (about:blank has the null origin) that knows the token.
        other = browser.new_page()
        other.goto("about:blank")
        result["socket_other_origin"] = socket_opens(other, f"ws://127.0.0.1:{port}/socket?token={token}")
        # An inline script the page did not ship is refused by the policy.
        result["inline_script_ran"] = page.evaluate(
            """() => new Promise((resolve) => {
                window.__ran = false;
                const script = document.createElement('script');
                script.textContent = 'window.__ran = true';
                document.body.appendChild(script);
                setTimeout(() => resolve(window.__ran), 200);
            })"""
        )
        # A flood of messages: the page keeps working and the host keeps speaking (judged by the Swift test).
        page.evaluate(
            """() => { const socket = new WebSocket(`ws://${location.host}/socket${location.search}`);
                socket.onopen = () => { for (let i = 0; i < 3000; i++) socket.send('{"type":"key","key":"f2"}'); }; }"""
        )
        time.sleep(1.5)
        browser.close()
    return result


# axe-core's rules, with its AAA contrast rule (7:1, off by default) turned on: the view promises 7:1.
AXE_OPTIONS = {"rules": {"color-contrast-enhanced": {"enabled": True}}}


def violations(page):
    from axe_playwright_python.sync_playwright import Axe

    return [violation["id"] for violation in Axe().run(page, options=AXE_OPTIONS).response["violations"]]


def seen(page):
    return page.evaluate(
        """() => ({
            title: document.getElementById('title').textContent,
            lines: Array.from(document.querySelectorAll('#history li')).map((item) => item.textContent)
                .concat([document.getElementById('now').textContent]),
            word: (document.querySelector('#now mark') || {}).textContent || null,
            choices: Array.from(document.querySelectorAll('#choices button')).map((button) => button.textContent),
            prompt: document.getElementById('prompt').textContent,
            focused: document.activeElement ? document.activeElement.textContent : null,
            sentences: Array.from(document.querySelectorAll('#sentences li')).map((item) => item.textContent),
            current: (document.querySelector('#sentences li.current') || {}).textContent || '',
        })"""
    )


def wait_for(page, predicate, seconds):
    deadline = time.time() + seconds * SCALE
    while time.time() < deadline:
        state = seen(page)
        if predicate(state):
            return state
        time.sleep(0.03)
    return seen(page)


def record_words(page):
    """Has the page record each word it marks, in `window.__words`, as it marks it (a poll from here could miss a
    word on a loaded machine)."""
    page.evaluate(
        """() => {
            window.__words = [];
            const now = document.getElementById('now');
            new MutationObserver(() => {
                const mark = now.querySelector('mark');
                if (mark && window.__words[window.__words.length - 1] !== mark.textContent)
                    window.__words.push(mark.textContent);
            }).observe(now, { childList: true, subtree: true });
        }"""
    )


def read_text(url, folder, by):
    """Chooses Read text on the menu, by click or by keys, and watches the reading in two tabs."""
    result = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        first = browser.new_page(viewport={"width": 1280, "height": 900})
        second = browser.new_page(viewport={"width": 1280, "height": 900})
        for page in (first, second):
            page.goto(url)
            page.wait_for_selector("#choices button")
        menu = seen(first)
        result["menu"] = menu["choices"]
        result["focused_at_menu"] = menu["focused"]
        result["axe_menu"] = violations(first)
        # What the page marks, recorded by the page itself as it changes: each word marked, and each sentence
        # marked as the one being read.
        record_words(first)
        first.evaluate(
            """() => {
                window.__sentences = [];
                const list = document.getElementById('sentences');
                new MutationObserver(() => {
                    const current = list.querySelector('li.current');
                    const text = current ? current.textContent : '';
                    if (text && window.__sentences[window.__sentences.length - 1] !== text)
                        window.__sentences.push(text);
                }).observe(list, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
            }"""
        )
        record_outlines(first)
        index = next(i for i, label in enumerate(menu["choices"]) if "Read text" in label)
        if by == "click":
            first.locator("#choices button").nth(index).click()
        else:
            first.locator("#choices button").first.focus()
            for _ in range(index):
                first.keyboard.press("ArrowDown")
            result["focused_before_enter"] = seen(first)["focused"]
            first.keyboard.press("Enter")
        reading = wait_for(first, lambda state: any("Reading aloud helps" in line for line in state["lines"]), 60)
        result["title"] = reading["title"]
        result["lines"] = reading["lines"]
        result["sentences"] = reading["sentences"]
        time.sleep(2)
        result["words"] = first.evaluate("() => window.__words")
        result["current_sentences"] = first.evaluate("() => window.__sentences")
        result["outlined"] = outlines_read(first, folder)
        # The word marked while the last sentence sounds, and a screenshot of the large print for OCR.
        wait_for(first, lambda state: state["word"] is not None, 5)
        shot = os.path.join(folder, "large-print.png")
        first.screenshot(path=shot)
        result["ocr"] = subprocess.run(
            ["tesseract", shot, "-", "--psm", "3"], capture_output=True, text=True, check=False
        ).stdout
        other = wait_for(second, lambda state: any("Reading aloud helps" in line for line in state["lines"]), 20)
        result["second_tab_title"] = other["title"]
        result["second_tab_lines"] = other["lines"]
        result["axe_reading"] = violations(first)
        # Settings on the page: the text size and the scheme apply in both tabs (and are kept by the host).
        first.locator("#settings summary").click()
        first.select_option("#text-size", "96")
        first.select_option("#scheme", "yellow-on-black")
        second.wait_for_function(
            "() => getComputedStyle(document.body).fontSize === '96px'", timeout=10000 * SCALE
        )
        result["size_second_tab"] = second.evaluate("() => getComputedStyle(document.body).fontSize")
        # A setting is applied when Assist sends it back (kept, then shown in every tab).
        first.wait_for_function("() => document.body.classList.contains('scheme-yellow-on-black')", timeout=10000 * SCALE)
        result["colours"] = first.evaluate(
            "() => [getComputedStyle(document.body).color, getComputedStyle(document.body).backgroundColor]"
        )
        result["axe_yellow"] = violations(first)
        # Every other scheme, at 7:1 too.
        for scheme in ("black-on-white", "white-on-black", "black-on-yellow"):
            first.select_option("#scheme", scheme)
            first.wait_for_function(f"() => document.body.classList.contains('scheme-{scheme}')", timeout=10000 * SCALE)
            result[f"axe_{scheme}"] = violations(first)
        # Escape on the page stops the feature, as at the terminal; the menu comes back as buttons.
        first.evaluate("() => document.activeElement && document.activeElement.blur()")
        first.keyboard.press("Escape")
        back = wait_for(first, lambda state: state["title"] == "Assist" and len(state["choices"]) > 3, 20)
        result["title_after_escape"] = back["title"]
        result["choices_after_escape"] = len(back["choices"])
        # Closing every page changes nothing for the terminal (judged by the Swift test).
        browser.close()
    return result


def marks(url, folder):
    """Chooses Read text by a click and records each word the page marks as it is heard, until the page's last
    sentence has been shown for 2 s."""
    with one_page(url) as page:
        page.wait_for_selector("#choices button", timeout=60000 * SCALE)
        record_words(page)
        labels = seen(page)["choices"]
        page.locator("#choices button").nth(next(i for i, l in enumerate(labels) if "Read text" in l)).click()
        reading = wait_for(page, lambda state: any("Reading aloud helps" in line for line in state["lines"]), 60)
        time.sleep(2)
        return {"lines": reading["lines"], "words": page.evaluate("() => window.__words")}


def canvas_summary(page):
    """The preview's size, its mean colour, and its share of dark pixels."""
    return page.evaluate(
        """() => {
            const canvas = document.getElementById('picture');
            const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            let r = 0, g = 0, b = 0, dark = 0;
            const count = data.length / 4;
            for (let i = 0; i < data.length; i += 4) {
                r += data[i]; g += data[i + 1]; b += data[i + 2];
                if (data[i] + data[i + 1] + data[i + 2] < 200) dark += 1;
            }
            return { width: canvas.width, height: canvas.height, mean: [r / count, g / count, b / count],
                     dark: dark / count, visible: !document.getElementById('camera').hidden };
        }"""
    )


def preview(url, folder):
    """Chooses Light, whose camera stays open, and looks at the preview with each filter and zoom."""
    result = {}
    with one_page(url) as page:
        page.wait_for_selector("#choices button")
        result["hidden_at_menu"] = page.evaluate("() => document.getElementById('camera').hidden")
        labels = seen(page)["choices"]
        page.locator("#choices button").nth(next(i for i, l in enumerate(labels) if "Light" in l)).click()
        page.wait_for_function("() => !document.getElementById('camera').hidden", timeout=30000 * SCALE)
        page.wait_for_function(
            "() => { const c = document.getElementById('picture');"
            " return c.getContext('2d').getImageData(c.width / 2, c.height / 2, 1, 1).data[3] === 255; }",
            timeout=30000 * SCALE,
        )
        time.sleep(0.5)
        result["normal"] = canvas_summary(page)
        result["axe_preview"] = violations(page)
        page.locator("#settings summary").click()
        # Each choice applies once Assist sends it back and the next picture is drawn: the paper's corner shows it.
        corner = "() => Array.from(document.getElementById('picture').getContext('2d').getImageData(4, 4, 1, 1).data)"
        page.select_option("#colours", "yellow-on-black")
        page.wait_for_function(f"() => {{ const p = ({corner})(); return p[0] > 200 && p[2] < 10; }}", timeout=20000 * SCALE)
        result["yellow"] = canvas_summary(page)
        page.select_option("#colours", "inverted")
        page.wait_for_function(f"() => ({corner})()[0] < 50", timeout=20000 * SCALE)
        result["inverted"] = canvas_summary(page)
        page.select_option("#colours", "normal")
        page.select_option("#zoom", "4")
        page.wait_for_function("() => document.getElementById('picture').width < 640", timeout=20000 * SCALE)
        page.wait_for_function(f"() => ({corner})()[0] > 200", timeout=20000 * SCALE)
        result["zoomed"] = canvas_summary(page)
        # Freeze: the picture is held while the colours change underneath.
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.keyboard.press("z")
        result["freeze_pressed"] = page.evaluate("() => document.getElementById('freeze').getAttribute('aria-pressed')")
        page.select_option("#colours", "inverted")
        page.wait_for_timeout(1500 * SCALE)
        result["frozen"] = canvas_summary(page)
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.keyboard.press("Escape")
        page.wait_for_function("() => document.getElementById('camera').hidden", timeout=20000 * SCALE)
        result["hidden_after_escape"] = True
    return result


def viewfinder(url, folder):
    """collect-videos filming: the time filmed counting up above the preview, the square it keeps outlined and
    the rest darkened (the camera is a plain grey, so what is darkened is measured), then, once it stops, the
    line gone. The page is opened on the shell's page first, and filming starts on the same port once it is
    (`page-open`)."""
    result = {"lines": []}
    with one_page(url) as page:
        # The page keeps each line it shows, so none is missed while axe-core runs (seconds on a busy machine, in
        # which filming went from 5 s to its end and only "Filming: 5 of 8 seconds" was seen).
        page.evaluate(
            """() => {
                const line = document.getElementById('recording');
                window.shownLines = [];
                const keep = () => {
                    const shown = window.shownLines;
                    if (!line.hidden && shown[shown.length - 1] !== line.textContent) shown.push(line.textContent);
                };
                new MutationObserver(keep).observe(
                    line, { attributes: true, childList: true, characterData: true, subtree: true });
                keep();
            }"""
        )
        # The Swift test starts filming once the page is open (the page comes back by itself when Assist starts
        # again on its port), so a browser slow to start misses none of it.
        open(os.path.join(folder, "page-open"), "w").close()
        page.wait_for_function("() => !document.getElementById('recording').hidden", timeout=60000 * SCALE)
        page.wait_for_function("() => document.getElementById('picture').dataset.square", timeout=60000 * SCALE)
        deadline = time.time() + 90 * SCALE
        while time.time() < deadline:
            state = page.evaluate(
                "() => ({ hidden: document.getElementById('recording').hidden, lines: window.shownLines })"
            )
            result["lines"] = state["lines"]
            if state["hidden"]:
                result["hidden_after"] = True
                break
            if "picture" not in result:
                result["picture"] = page.evaluate(
                    """() => {
                        const canvas = document.getElementById('picture');
                        const context = canvas.getContext('2d');
                        const [left, top, side] = canvas.dataset.square.split(',').map(Number);
                        const width = canvas.width, height = canvas.height;
                        const mean = (x, y, w, h) => {
                            const data = context.getImageData(x, y, w, h).data;
                            let sum = 0;
                            for (let i = 0; i < data.length; i += 4) sum += data[i] + data[i + 1] + data[i + 2];
                            return sum / (data.length / 4) / 3;
                        };
                        // Clear of the outline (8 pixels wide, on the square's edge).
                        const strip = Math.max(1, Math.floor(left * width) - 12);
                        return { width, height, square: [left, top, side],
                                 outside: mean(2, height / 4, strip, height / 2),
                                 inside: mean(width / 2 - 20, height / 2 - 20, 40, 40) };
                    }"""
                )
                result["axe"] = violations(page)
            time.sleep(0.1)
    return result


def reconnect(url, folder):
    """Opens the page, then waits while the host is stopped and started again (by the Swift test, which is
    told by the file `page-open`), for the page to say so and then to come back by itself."""
    result = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector("#choices button")
        open(os.path.join(folder, "page-open"), "w").close()
        page.wait_for_function(
            "() => document.getElementById('connection').textContent.length > 0", timeout=60000 * SCALE
        )
        result["said_while_away"] = page.evaluate("() => document.getElementById('connection').textContent")
        page.wait_for_function(
            "() => document.getElementById('connection').textContent === ''"
            " && document.querySelectorAll('#choices button').length > 3",
            timeout=90000 * SCALE,
        )
        result["lines_after"] = seen(page)["lines"]
        browser.close()
    return result


def target(url, folder):
    """Waits for find-object's target on the preview and reads where the page drew it."""
    with one_page(url) as page:
        page.wait_for_function("() => !document.getElementById('camera').hidden", timeout=60000 * SCALE)
        page.wait_for_function("() => document.getElementById('picture').dataset.target", timeout=90000 * SCALE)
        time.sleep(1.0)
        result = {"target": page.evaluate("() => document.getElementById('picture').dataset.target")}
    return result


def record_outlines(page):
    """Has the page record, for each sentence of read-text's picture outlined, its boxes and what lies inside them,
    cut from the picture as the page received it (without the outline drawn around them)."""
    page.evaluate(
        """() => {
            window.__outlined = [];
            const canvas = document.getElementById('page-picture');
            new MutationObserver(() => {
                const sentence = Number(canvas.dataset.sentence);
                const outlines = canvas.dataset.outlines || '';
                const last = window.__outlined[window.__outlined.length - 1];
                if (!outlines || (last && last.sentence === sentence)) return;
                const image = pagePicture.image;
                const boxes = outlines.split(';').map((box) => box.split(',').map(Number));
                const crops = boxes.map(([left, top, width, height]) => {
                    const cut = document.createElement('canvas');
                    cut.width = Math.max(1, Math.round(width * image.width));
                    cut.height = Math.max(1, Math.round(height * image.height));
                    cut.getContext('2d').drawImage(image, left * image.width, top * image.height,
                        cut.width, cut.height, 0, 0, cut.width, cut.height);
                    return cut.toDataURL('image/png');
                });
                window.__outlined.push({ sentence, boxes, crops, hidden: canvas.hidden,
                    shown: canvas.getBoundingClientRect().width,
                    text: (document.querySelector('#sentences li.current') || {}).textContent || '' });
            }).observe(canvas, { attributes: true, attributeFilter: ['data-outlines', 'data-sentence'] });
        }"""
    )


def outlines_read(page, folder):
    """What `record_outlines` recorded, each cut read by tesseract as one line."""
    outlined = page.evaluate("() => window.__outlined")
    for entry in outlined:
        texts = []
        for number, crop in enumerate(entry.pop("crops")):
            cut = os.path.join(folder, f"outlined-{entry['sentence']}-{number}.png")
            with open(cut, "wb") as file:
                file.write(base64.b64decode(crop.split(",", 1)[1]))
            texts.append(subprocess.run(
                ["tesseract", cut, "-", "--psm", "7"], capture_output=True, text=True, check=False
            ).stdout.strip())
        entry["ocr"] = texts
    return outlined


def outlines(url, folder):
    """read-text on a photographed page (the camera is the photo): three sentences' outlines, in turn from the first
    the page sees, and what they hold."""
    with one_page(url) as page:
        record_outlines(page)
        page.wait_for_function("() => window.__outlined.length >= 3", timeout=120000 * SCALE)
        return {"outlined": outlines_read(page, folder)[:3]}


def photos(url, folder):
    """Opens photo-sensor's menu by a click and reads the photos shown while it is open, then leaves it."""
    result = {}
    with one_page(url) as page:
        page.wait_for_selector("#choices button")
        page.locator("#choices button", has_text="Photo sensor").first.click()
        page.wait_for_function(
            """() => !document.getElementById('photos').hidden
                && Array.from(document.querySelectorAll('#photo-list img'))
                    .every((image) => image.complete && image.naturalWidth > 0)""",
            timeout=60000 * SCALE,
        )
        result["photos"] = page.evaluate(
            """() => Array.from(document.querySelectorAll('#photo-list figure')).map((figure) => ({
                caption: figure.querySelector('figcaption').innerText,
                alt: figure.querySelector('img').alt,
                width: figure.querySelector('img').naturalWidth,
                height: figure.querySelector('img').naturalHeight,
                shown: figure.querySelector('img').getBoundingClientRect().width,
            }))"""
        )
        result["prompt"] = seen(page)["prompt"]
        result["axe"] = violations(page)
        page.keyboard.press("Escape")
        page.wait_for_function("() => document.getElementById('photos').hidden", timeout=20000 * SCALE)
        result["hidden_after"] = True
    return result


def heard(url, folder):
    """Records each line as it starts to be heard (the page shows a line when its first word sounds), with the
    time its first word sounded as Assist tells the page (a word's `at`, the host's clock: a page a loaded machine
    serves late still tells when it was heard), until the test writes `heard-stop` in the folder; `heard-ready`
    says the page is listening."""
    with one_page(url) as page:
        page.wait_for_selector("#choices button", timeout=60000 * SCALE)
        page.evaluate(
            """() => {
                window.__heard = [];
                const now = document.getElementById('now');
                new MutationObserver(() => {
                    const last = window.__heard[window.__heard.length - 1];
                    if (!now.dataset.line || !now.dataset.at || (last && last.id === now.dataset.line)) return;
                    const line = page.lines.get(Number(now.dataset.line));
                    window.__heard.push({
                        id: now.dataset.line, text: line ? line.text : '', at: Number(now.dataset.at) / 1000 });
                }).observe(now, { attributes: true, attributeFilter: ['data-at'] });
            }"""
        )
        open(os.path.join(folder, "heard-ready"), "w").close()
        stop = os.path.join(folder, "heard-stop")
        deadline = time.time() + 300 * SCALE
        while not os.path.exists(stop) and time.time() < deadline:
            time.sleep(0.1)
        result = {"heard": page.evaluate("() => window.__heard")}
    return result


def printed(url, folder):
    """With speech off: the lines printed are shown, and the live line is polite for the screen reader."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector("#choices button")
        state = wait_for(page, lambda state: any(line.startswith("Assist is ready") for line in state["lines"]), 20)
        result = {"lines": state["lines"], "live": page.evaluate("() => document.getElementById('now').getAttribute('aria-live')")}
        browser.close()
    return result


def main():
    scenario, url, folder = sys.argv[1], sys.argv[2], sys.argv[3]
    if scenario == "security":
        result = security(url, folder)
    elif scenario == "click":
        result = read_text(url, folder, "click")
    elif scenario == "printed":
        result = printed(url, folder)
    elif scenario == "heard":
        result = heard(url, folder)
    elif scenario == "outlines":
        result = outlines(url, folder)
    elif scenario == "photos":
        result = photos(url, folder)
    elif scenario == "target":
        result = target(url, folder)
    elif scenario == "marks":
        result = marks(url, folder)
    elif scenario == "viewfinder":
        result = viewfinder(url, folder)
    elif scenario == "reconnect":
        result = reconnect(url, folder)
    elif scenario == "preview":
        result = preview(url, folder)
    elif scenario == "keys":
        result = read_text(url, folder, "keys")
    else:
        raise SystemExit(f"unknown scenario {scenario}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
