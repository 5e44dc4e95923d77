// Assist's low-vision view (docs/view.md): shows what Assist says as it says it, the word being heard marked,
// the question asked as buttons; sends keys, clicks and typed words back over one websocket. No framework, no
// inline code (the page's Content-Security-Policy allows this file only), text set only through textContent.
"use strict";

const WORDS = {
  en: {
    title: "Assist", heard: "What Assist said", words: "Type words or a command", send: "Send",
    settings: "Large print settings", size: "Text size", scheme: "Colours", font: "Font",
    spacing: "Line spacing", highlight: "Highlight the word being said", yes: "Yes", no: "No",
    connecting: "Connecting to Assist…", lost: "Assist is not answering; trying again every second.",
    schemes: { "system": "As the system's", "black-on-white": "Black on white", "white-on-black": "White on black",
      "yellow-on-black": "Yellow on black", "black-on-yellow": "Black on yellow" },
    fonts: { "dejavu-sans": "DejaVu Sans", "noto-sans": "Noto Sans", "system": "The browser's own" },
    pixels: "pixels", answer: "Answer",
    page: "The page",
    recording: "Filming: {s} of {max} seconds",
    camera: "Camera", zoom: "Zoom", colours: "Picture colours", contrast: "Stronger contrast", freeze: "Freeze (z)", sees: "What the camera sees", photos: "Last photos", noLabels: "no labels yet", pictureRead: "The picture read, the sentence being read outlined", frozen: "The picture is held: z lets it go.", pictureColours: { "normal": "As they are", "inverted": "Inverted", "yellow-on-black": "Yellow on black" },
  },
  es: {
    title: "Assist", heard: "Lo que dijo Assist", words: "Escriba palabras u órdenes", send: "Enviar",
    settings: "Ajustes de la letra grande", size: "Tamaño", scheme: "Colores", font: "Tipo de letra",
    spacing: "Interlineado", highlight: "Resaltar la palabra que se dice", yes: "Sí", no: "No",
    connecting: "Conectando con Assist…", lost: "Assist no responde; se reintenta cada segundo.",
    schemes: { "system": "Los del sistema", "black-on-white": "Negro sobre blanco",
      "white-on-black": "Blanco sobre negro", "yellow-on-black": "Amarillo sobre negro",
      "black-on-yellow": "Negro sobre amarillo" },
    fonts: { "dejavu-sans": "DejaVu Sans", "noto-sans": "Noto Sans", "system": "El del navegador" },
    pixels: "píxeles", answer: "Respuesta",
    page: "La página",
    recording: "Grabando: {s} de {max} segundos",
    camera: "Cámara", zoom: "Aumento", colours: "Colores de la imagen", contrast: "Más contraste", freeze: "Congelar (z)", sees: "Lo que ve la cámara", photos: "Últimas fotos", noLabels: "aún sin etiquetas", pictureRead: "La imagen leída, con la frase que se lee recuadrada", frozen: "La imagen está congelada: z la suelta.", pictureColours: { "normal": "Tal como son", "inverted": "Invertidos", "yellow-on-black": "Amarillo sobre negro" },
  },
  ru: {
    title: "Assist", heard: "Что сказал Assist", words: "Введите слова или команду", send: "Отправить",
    settings: "Настройки крупного шрифта", size: "Размер", scheme: "Цвета", font: "Шрифт",
    spacing: "Межстрочный интервал", highlight: "Выделять произносимое слово", yes: "Да", no: "Нет",
    connecting: "Подключение к Assist…", lost: "Assist не отвечает; повтор каждую секунду.",
    schemes: { "system": "Как в системе", "black-on-white": "Чёрный на белом", "white-on-black": "Белый на чёрном",
      "yellow-on-black": "Жёлтый на чёрном", "black-on-yellow": "Чёрный на жёлтом" },
    fonts: { "dejavu-sans": "DejaVu Sans", "noto-sans": "Noto Sans", "system": "Шрифт браузера" },
    pixels: "пикселей", answer: "Ответ",
    page: "Страница",
    recording: "Съёмка: {s} из {max} секунд",
    camera: "Камера", zoom: "Увеличение", colours: "Цвета изображения", contrast: "Сильнее контраст", freeze: "Заморозить (z)", sees: "Что видит камера", photos: "Последние фото", noLabels: "меток пока нет", pictureRead: "Прочитанное изображение, читаемое предложение обведено", frozen: "Изображение заморожено: z отпускает его.", pictureColours: { "normal": "Как есть", "inverted": "Инвертированные", "yellow-on-black": "Жёлтый на чёрном" },
  },
  zh: {
    title: "Assist", heard: "Assist 说过的话", words: "输入词语或命令", send: "发送",
    settings: "大字设置", size: "字号", scheme: "颜色", font: "字体", spacing: "行距",
    highlight: "突出显示正在读的词", yes: "是", no: "否",
    connecting: "正在连接 Assist…", lost: "Assist 没有响应；每秒重试一次。",
    schemes: { "system": "跟随系统", "black-on-white": "白底黑字", "white-on-black": "黑底白字",
      "yellow-on-black": "黑底黄字", "black-on-yellow": "黄底黑字" },
    fonts: { "dejavu-sans": "DejaVu Sans", "noto-sans": "Noto Sans", "system": "浏览器自带字体" },
    pixels: "像素", answer: "回答",
    page: "页面",
    recording: "正在拍摄：{s} / {max} 秒",
    camera: "摄像头", zoom: "放大", colours: "画面颜色", contrast: "增强对比度", freeze: "定格 (z)", sees: "摄像头看到的画面", photos: "最近的照片", noLabels: "尚无标签", pictureRead: "读取的图片，正在朗读的句子已框出", frozen: "画面已定格：按 z 恢复。", pictureColours: { "normal": "原样", "inverted": "反色", "yellow-on-black": "黑底黄色" },
  },
};

const SIZES = [24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 144, 160];
const SPACINGS = ["1", "1.25", "1.5", "1.75", "2", "2.25", "2.5"];
const KEPT_LINES = 60;

const page = {
  socket: null,
  lines: new Map(),        // id -> { text, item }
  current: null,           // id of the line being heard
  settings: {},
  question: null,
  words: WORDS.en,
  cameraOpen: false,
  previewSent: null,       // what the host was last told: "on@zoom" or "off"
  frozen: false,
  panels: {},              // what the feature shows besides its lines: reading, sentence, target
};

function $(id) { return document.getElementById(id); }

function send(message) {
  if (page.socket && page.socket.readyState === WebSocket.OPEN) page.socket.send(JSON.stringify(message));
}

// MARK: what is heard

function showLine(id, text) {
  if (page.lines.has(id)) return;
  // The line heard before moves up into the history.
  if (page.current !== null && page.lines.has(page.current)) settle(page.current);
  const item = document.createElement("li");
  item.textContent = text;
  page.lines.set(id, { text, item });
  page.current = id;
  const now = $("now");
  now.dataset.line = String(id);
  now.textContent = text;
  while (page.lines.size > KEPT_LINES) {
    const oldest = page.lines.keys().next().value;
    page.lines.get(oldest).item.remove();
    page.lines.delete(oldest);
  }
}

function settle(id) {
  const line = page.lines.get(id);
  if (!line || line.item.isConnected) return;
  const history = $("history");
  history.appendChild(line.item);
  history.scrollTop = history.scrollHeight;
}

function markWord(id, start, length, at) {
  const line = page.lines.get(id);
  const now = $("now");
  if (!line || now.dataset.line !== String(id)) return;
  const scalars = Array.from(line.text);
  const before = scalars.slice(0, start).join("");
  const word = scalars.slice(start, start + length).join("");
  const after = scalars.slice(start + length).join("");
  const mark = document.createElement("mark");
  mark.textContent = word;
  now.replaceChildren(document.createTextNode(before), mark, document.createTextNode(after));
  now.dataset.word = word;
  if (at) now.dataset.at = String(at);
}

function endLine(id) {
  const now = $("now");
  if (now.dataset.line !== String(id)) return;
  const line = page.lines.get(id);
  if (line) now.textContent = line.text;
  delete now.dataset.word;
}

// MARK: the question asked

function showQuestion(question) {
  page.question = question;
  const section = $("question");
  const choices = $("choices");
  choices.replaceChildren();
  if (!question) {
    section.hidden = true;
    return;
  }
  $("prompt").textContent = question.prompt;
  section.hidden = false;
  let buttons = [];
  if (question.kind === "choice") {
    buttons = question.choices.map((label, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = `${index + 1}. ${label}`;
      button.addEventListener("click", () => send({ type: "choose", index }));
      return button;
    });
  } else if (question.kind === "confirm") {
    buttons = [["y", page.words.yes], ["n", page.words.no]].map(([key, label]) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      button.addEventListener("click", () => send({ type: "key", key }));
      return button;
    });
  }
  buttons.forEach((button) => choices.appendChild(button));
  const words = $("words");
  words.type = question.kind === "secret" ? "password" : "text";
  // Focus follows the dialog: its first choice, or the box for a typed answer.
  if (buttons.length > 0) buttons[0].focus();
  else words.focus();
}

// MARK: settings

function fillSelect(select, values, label) {
  select.replaceChildren(...values.map((value) => {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = label(value);
    return option;
  }));
}

function applySettings(settings) {
  page.settings = settings;
  const root = document.documentElement;
  const size = Number(settings["view.text-size"] || 48);
  root.style.setProperty("--text-size", `${size}px`);
  root.style.setProperty("--line-spacing", settings["view.line-spacing"] || "1.5");
  const body = document.body;
  body.className = "";
  body.classList.add(`scheme-${settings["view.scheme"] || "system"}`);
  body.classList.add(`font-${settings["view.font"] || "dejavu-sans"}`);
  if (settings["view.highlight"] === "false") body.classList.add("no-highlight");
  // Orca and other screen readers read the live line only when Assist itself does not speak it.
  $("now").setAttribute("aria-live", settings["assist.speech"] === "off" ? "polite" : "off");
  const language = settings["assist.language"] || "en";
  if (WORDS[language] && page.words !== WORDS[language]) {
    page.words = WORDS[language];
    document.documentElement.lang = language;
    label();
  }
  const sizes = SIZES.includes(size) ? SIZES : [...SIZES, size].sort((a, b) => a - b);
  if ($("text-size").options.length !== sizes.length) {
    fillSelect($("text-size"), sizes.map(String), (value) => `${value} ${page.words.pixels}`);
  }
  $("text-size").value = String(size);
  $("scheme").value = settings["view.scheme"] || "system";
  $("font").value = settings["view.font"] || "dejavu-sans";
  const spacing = String(Number(settings["view.line-spacing"] || 1.5));
  if (!SPACINGS.includes(spacing)) fillSelect($("line-spacing"), [...SPACINGS, spacing], (value) => value);
  $("line-spacing").value = spacing;
  $("highlight").checked = settings["view.highlight"] !== "false";
  $("zoom").value = String(Number(settings["view.preview-zoom"] || 1));
  $("colours").value = settings["view.preview-colours"] || "normal";
  $("contrast").checked = settings["view.preview-contrast"] === "true";
  updatePreview();
}

// MARK: what the feature shows

function showPanel(kind, data) {
  if (data === null || data === undefined) delete page.panels[kind];
  else page.panels[kind] = data;
  if (kind === "reading" || kind === "sentence" || kind === "page-picture") showReading();
  if (kind === "recording") showRecording();
  if (kind === "photos") showPhotos();
}

/// photo-sensor's last photos while its menu is open: each upright, its labels as its caption (and its text
/// alternative), its file's name under them.
function showPhotos() {
  const data = page.panels.photos;
  const photos = data && Array.isArray(data.photos) ? data.photos : [];
  $("photos").hidden = photos.length === 0;
  $("photo-list").replaceChildren(...photos.map((photo) => {
    const item = document.createElement("li");
    const figure = document.createElement("figure");
    const image = new Image();
    const labels = Array.isArray(photo.labels) && photo.labels.length > 0 ? photo.labels.join(", ") : page.words.noLabels;
    image.alt = labels;
    image.width = photo.width;
    image.height = photo.height;
    image.src = "data:image/jpeg;base64," + photo.jpeg;
    const caption = document.createElement("figcaption");
    const what = document.createElement("strong");
    what.textContent = labels;
    const name = document.createElement("span");
    name.textContent = photo.name;
    caption.replaceChildren(what, document.createElement("br"), name);
    figure.replaceChildren(image, caption);
    item.appendChild(figure);
    return item;
  }));
}

function showRecording() {
  const recording = page.panels.recording;
  const line = $("recording");
  line.hidden = !recording;
  if (recording) {
    line.textContent = page.words.recording.replace("{s}", recording.seconds).replace("{max}", recording.max);
  }
}

function showReading() {
  const reading = page.panels.reading;
  const section = $("reading");
  const list = $("sentences");
  if (!reading || !Array.isArray(reading.sentences)) {
    section.hidden = true;
    list.replaceChildren();
    return;
  }
  section.hidden = false;
  if (list.dataset.page !== String(reading.page) || list.children.length !== reading.sentences.length) {
    list.dataset.page = String(reading.page);
    list.replaceChildren(...reading.sentences.map((text) => {
      const item = document.createElement("li");
      item.textContent = text;
      return item;
    }));
  }
  const sentence = page.panels.sentence;
  const current = sentence && sentence.page === reading.page ? sentence.index : -1;
  Array.from(list.children).forEach((item, index) => {
    const now = index === current;
    item.classList.toggle("current", now);
    if (now) {
      item.setAttribute("aria-current", "true");
      item.scrollIntoView({ block: "nearest" });
    } else {
      item.removeAttribute("aria-current");
    }
  });
  showPagePicture(reading, current);
}

/// read-text's picture beside its text, the lines of the sentence being read outlined (in the scheme's two
/// colours, so the outline stands out on any picture). Shown only when the picture is the one the sentences were
/// read from.
const pagePicture = { number: 0, image: null };

function showPagePicture(reading, current) {
  const canvas = $("page-picture");
  const picture = page.panels["page-picture"];
  const matches = picture && typeof picture.jpeg === "string" && reading.picture === picture.picture;
  canvas.hidden = !matches;
  if (!matches) {
    delete canvas.dataset.outlines;
    return;
  }
  if (pagePicture.number !== picture.picture) {
    pagePicture.number = picture.picture;
    pagePicture.image = null;
    const image = new Image();
    image.onload = () => {
      if (pagePicture.number !== picture.picture) return;
      pagePicture.image = image;
      showReading();
    };
    image.src = "data:image/jpeg;base64," + picture.jpeg;
    return;
  }
  if (!pagePicture.image) return;
  const width = picture.width, height = picture.height;
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const context = canvas.getContext("2d");
  context.drawImage(pagePicture.image, 0, 0, width, height);
  const lines = Array.isArray(reading.lines) && current >= 0 && Array.isArray(reading.lines[current])
    ? reading.lines[current] : [];
  canvas.dataset.sentence = String(current);
  canvas.dataset.outlines = lines.map((box) => box.map((v) => Number(v).toFixed(3)).join(",")).join(";");
  const style = getComputedStyle(document.body);
  const thickness = Math.max(3, Math.round(width / 200));
  for (const [colour, line] of [[style.backgroundColor, thickness * 2], [style.color, thickness]]) {
    context.strokeStyle = colour;
    context.lineWidth = line;
    for (const [left, top, boxWidth, boxHeight] of lines) {
      const margin = thickness * 1.5;
      context.strokeRect(left * width - margin, top * height - margin, boxWidth * width + 2 * margin,
        boxHeight * height + 2 * margin);
    }
  }
}

/// find-object's target on the preview: a box (or a ring when only its centre is known) and an arrow from the
/// middle of the picture to it, in the scheme's two colours so it stands out on any picture.
function drawTarget(context, width, height) {
  const canvas = $("picture");
  drawSquare(context, width, height);
  const target = page.panels.target;
  if (!target || typeof target.x !== "number") {
    delete canvas.dataset.target;
    return;
  }
  const zoom = Number(page.settings["view.preview-zoom"] || 1);
  const x = ((target.x - 0.5) * zoom + 0.5) * width;
  const y = ((target.y - 0.5) * zoom + 0.5) * height;
  const boxWidth = (target.w || 0) * zoom * width;
  const boxHeight = (target.h || 0) * zoom * height;
  canvas.dataset.target = [x / width, y / height, boxWidth / width, boxHeight / height].map((v) => v.toFixed(3)).join(",");
  const style = getComputedStyle(document.body);
  const line = Math.max(3, Math.round(width / 120));
  for (const [colour, thickness] of [[style.backgroundColor, line * 2], [style.color, line]]) {
    context.strokeStyle = colour;
    context.lineWidth = thickness;
    context.beginPath();
    if (boxWidth > 0 && boxHeight > 0) context.rect(x - boxWidth / 2, y - boxHeight / 2, boxWidth, boxHeight);
    else context.arc(x, y, width / 20, 0, 2 * Math.PI);
    context.stroke();
    const fromX = width / 2, fromY = height / 2;
    const distance = Math.hypot(x - fromX, y - fromY);
    if (distance > width / 10) {
      const angle = Math.atan2(y - fromY, x - fromX);
      const tipX = fromX + Math.cos(angle) * (distance - width / 20);
      const tipY = fromY + Math.sin(angle) * (distance - width / 20);
      context.beginPath();
      context.moveTo(fromX, fromY);
      context.lineTo(tipX, tipY);
      context.moveTo(tipX, tipY);
      context.lineTo(tipX - Math.cos(angle - 0.5) * width / 30, tipY - Math.sin(angle - 0.5) * width / 30);
      context.moveTo(tipX, tipY);
      context.lineTo(tipX - Math.cos(angle + 0.5) * width / 30, tipY - Math.sin(angle + 0.5) * width / 30);
      context.stroke();
    }
  }
}

/// collect-videos films the square in the middle of the picture: while it films, the rest is darkened and the
/// square outlined, so what is outside the clip is plain to see.
function drawSquare(context, width, height) {
  const recording = page.panels.recording;
  if (!recording || !recording.square) return;
  // The square's side is the picture's shorter side; the preview shows 1/zoom of the picture.
  const zoom = Number(page.settings["view.preview-zoom"] || 1);
  const side = Math.min(width, height) * zoom;
  const left = (width - side) / 2, top = (height - side) / 2;
  context.fillStyle = "rgba(0, 0, 0, 0.6)";
  if (left > 0) {
    context.fillRect(0, 0, left, height);
    context.fillRect(left + side, 0, left, height);
  }
  if (top > 0) {
    context.fillRect(0, 0, width, top);
    context.fillRect(0, top + side, width, top);
  }
  const style = getComputedStyle(document.body);
  for (const [colour, thickness] of [[style.backgroundColor, 8], [style.color, 4]]) {
    context.strokeStyle = colour;
    context.lineWidth = thickness;
    context.strokeRect(left, top, side, side);
  }
  $("picture").dataset.square = [left / width, top / height, side / width].map((v) => v.toFixed(3)).join(",");
}

// MARK: the camera's preview

function updatePreview() {
  const section = $("camera");
  section.hidden = !page.cameraOpen;
  const wanted = page.cameraOpen && document.visibilityState === "visible";
  const zoom = Number(page.settings["view.preview-zoom"] || 1);
  const said = wanted ? `on@${zoom}` : "off";
  if (said === page.previewSent) return;
  page.previewSent = said;
  send({ type: "preview", on: wanted, zoom });
}

function toggleFreeze() {
  page.frozen = !page.frozen;
  $("freeze").setAttribute("aria-pressed", String(page.frozen));
  $("connection").textContent = page.frozen ? page.words.frozen : "";
}

function drawPicture(buffer) {
  if (page.frozen || $("camera").hidden) return;
  const bytes = new Uint8Array(buffer);
  if (bytes.length < 8 || bytes[0] !== 1 || bytes[1] !== 3) return;
  const width = bytes[2] | (bytes[3] << 8);
  const height = bytes[4] | (bytes[5] << 8);
  if (bytes.length < 8 + width * height * 3) return;
  const canvas = $("picture");
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const context = canvas.getContext("2d");
  const image = context.createImageData(width, height);
  const out = image.data;
  const colours = page.settings["view.preview-colours"] || "normal";
  const contrast = page.settings["view.preview-contrast"] === "true";
  for (let source = 8, target = 0; target < out.length; source += 3, target += 4) {
    let r = bytes[source], g = bytes[source + 1], b = bytes[source + 2];
    if (contrast) {
      r = Math.max(0, Math.min(255, (r - 128) * 2 + 128));
      g = Math.max(0, Math.min(255, (g - 128) * 2 + 128));
      b = Math.max(0, Math.min(255, (b - 128) * 2 + 128));
    }
    if (colours === "inverted") {
      r = 255 - r; g = 255 - g; b = 255 - b;
    } else if (colours === "yellow-on-black") {
      const light = (r * 54 + g * 183 + b * 19) >> 8;
      r = light; g = light; b = 0;
    }
    out[target] = r; out[target + 1] = g; out[target + 2] = b; out[target + 3] = 255;
  }
  context.putImageData(image, 0, 0);
  drawTarget(context, width, height);
}

function label() {
  const words = page.words;
  document.title = words.title;
  $("heard-heading").textContent = words.heard;
  $("words-label").textContent = words.words;
  $("send").textContent = words.send;
  $("settings-title").textContent = words.settings;
  $("text-size-label").textContent = words.size;
  $("scheme-label").textContent = words.scheme;
  $("font-label").textContent = words.font;
  $("line-spacing-label").textContent = words.spacing;
  $("highlight-label").textContent = words.highlight;
  $("camera-heading").textContent = words.camera;
  $("reading-heading").textContent = words.page;
  $("zoom-label").textContent = words.zoom;
  $("colours-label").textContent = words.colours;
  $("contrast-label").textContent = words.contrast;
  $("freeze").textContent = words.freeze;
  $("picture").setAttribute("aria-label", words.sees);
  $("page-picture").setAttribute("aria-label", words.pictureRead);
  $("photos-heading").textContent = words.photos;
  fillSelect($("zoom"), ["1", "1.5", "2", "3", "4", "5", "6", "8"], (value) => `${value}×`);
  fillSelect($("colours"), Object.keys(words.pictureColours), (value) => words.pictureColours[value]);
  fillSelect($("text-size"), SIZES.map(String), (value) => `${value} ${words.pixels}`);
  fillSelect($("scheme"), Object.keys(words.schemes), (value) => words.schemes[value]);
  fillSelect($("font"), Object.keys(words.fonts), (value) => words.fonts[value]);
  fillSelect($("line-spacing"), SPACINGS, (value) => value);
  if (page.question) showQuestion(page.question);
}

// MARK: messages from Assist

function receive(message) {
  switch (message.type) {
    case "state":
      page.lines.forEach((line) => line.item.remove());
      page.lines.clear();
      page.current = null;
      $("now").textContent = "";
      applySettings(message.settings || {});
      (message.lines || []).forEach((line) => showLine(line.id, line.text));
      if (message.speaking) markWord(message.speaking.id, message.speaking.start, message.speaking.length);
      $("title").textContent = message.feature || page.words.title;
      showQuestion(message.question);
      page.panels = {};
      Object.entries(message.panels || {}).forEach(([kind, data]) => showPanel(kind, data));
      showReading();
      showRecording();
      page.cameraOpen = message.camera === true;
      page.previewSent = null;
      updatePreview();
      break;
    case "camera":
      page.cameraOpen = message.open === true;
      if (!page.cameraOpen && page.frozen) toggleFreeze();
      updatePreview();
      break;
    case "line": showLine(message.id, message.text); break;
    case "word": markWord(message.id, message.start, message.length, message.at); break;
    case "end": endLine(message.id); break;
    case "question": showQuestion(message.question); break;
    case "feature": $("title").textContent = message.name || page.words.title; break;
    case "settings": applySettings(message.settings); break;
    case "panel": showPanel(message.kind, message.data); break;
    default: break;
  }
}

function connect() {
  const token = new URLSearchParams(location.search).get("token") || "";
  const socket = new WebSocket(`ws://${location.host}/socket?token=${encodeURIComponent(token)}`);
  socket.binaryType = "arraybuffer";
  page.socket = socket;
  socket.addEventListener("open", () => { $("connection").textContent = ""; });
  socket.addEventListener("message", (event) => {
    if (event.data instanceof ArrayBuffer) {
      drawPicture(event.data);
      return;
    }
    try { receive(JSON.parse(event.data)); } catch (error) { /* a message not understood is skipped */ }
  });
  socket.addEventListener("close", () => {
    $("connection").textContent = page.words.lost;
    // While Assist is away nothing live is known: no "Filming: 7 of 8 seconds" or target left as if it went on
    // (what was being read stays to be read). The state comes back whole when the page connects again.
    delete page.panels.recording;
    delete page.panels.target;
    showRecording();
    setTimeout(connect, 1000);
  });
}

// MARK: keys, clicks and typing

const SENT_KEYS = {
  Enter: "enter", Escape: "escape", " ": "space", Backspace: "backspace", Delete: "delete",
  ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right", Home: "home", End: "end",
  PageUp: "pageup", PageDown: "pagedown",
};

function moveAmongChoices(event) {
  const buttons = Array.from($("choices").querySelectorAll("button"));
  const index = buttons.indexOf(document.activeElement);
  if (index < 0) return false;
  const step = event.key === "ArrowDown" || event.key === "ArrowRight" ? 1 : -1;
  buttons[(index + step + buttons.length) % buttons.length].focus();
  return true;
}

function onKey(event) {
  if (event.ctrlKey || event.altKey || event.metaKey || event.isComposing) return;
  const target = event.target;
  const inControl = target instanceof HTMLInputElement || target instanceof HTMLSelectElement ||
    target.tagName === "SUMMARY";
  if (inControl) {
    // Escape in the typing box clears it; elsewhere (a setting) it is Assist's, as at the terminal.
    if (event.key === "Escape" && target === $("words") && target.value !== "") {
      target.value = "";
      event.preventDefault();
      return;
    }
    if (event.key !== "Escape") return;
  }
  const onButton = target instanceof HTMLButtonElement;
  if (event.key.startsWith("Arrow") && onButton && moveAmongChoices(event)) {
    event.preventDefault();
    return;
  }
  // Enter and Space press the focused button, as a browser does; Tab moves among them.
  if (onButton && (event.key === "Enter" || event.key === " ")) return;
  if (event.key === "Tab") return;
  if (/^F([1-9]|1[0-2])$/.test(event.key)) {
    send({ type: "key", key: event.key.toLowerCase() });
    event.preventDefault();
    return;
  }
  if (SENT_KEYS[event.key]) {
    send({ type: "key", key: SENT_KEYS[event.key] });
    event.preventDefault();
    return;
  }
  if ((event.key === "z" || event.key === "Z") && page.cameraOpen) {
    toggleFreeze();
    event.preventDefault();
    return;
  }
  if (event.key.length === 1 || Array.from(event.key).length === 1) {
    // At a question, letters begin a typed answer, as at the terminal's menu; digits choose.
    const question = page.question;
    if (question && !/[0-9]/.test(event.key) && question.kind !== "confirm") {
      const words = $("words");
      words.focus();
      words.value += event.key;
    } else {
      send({ type: "key", key: event.key });
    }
    event.preventDefault();
  }
}

function start() {
  label();
  $("connection").textContent = page.words.connecting;
  $("typing").addEventListener("submit", (event) => {
    event.preventDefault();
    const words = $("words");
    send({ type: "line", text: words.value });
    words.value = "";
  });
  document.querySelectorAll("[data-key]").forEach((control) => {
    control.addEventListener("change", () => {
      const value = control.type === "checkbox" ? String(control.checked) : control.value;
      send({ type: "setting", key: control.dataset.key, value });
    });
  });
  document.addEventListener("keydown", onKey);
  document.addEventListener("visibilitychange", updatePreview);
  $("freeze").addEventListener("click", toggleFreeze);
  connect();
}

document.addEventListener("DOMContentLoaded", start);
