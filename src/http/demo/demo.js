// hawiya's demo page: reads one file through the API as any client would (Flow A
// with overlay=true, then Flow B) and shows the answers. No dependencies.
'use strict';

const meta = (name) => document.querySelector(`meta[name="${name}"]`).content;
const PREFIX = meta('hawiya-prefix');
// A field resting on a line read less confidently than this is for review.
const REVIEW_BELOW = Number(meta('hawiya-review-below'));
const KEY_STORE = 'hawiya-api-key';
// The fields of Flow A's `data` that the server adds, not read from the document.
const SERVER_FIELDS = new Set(['proccesstime', 'imageName', 'savedImage', 'urlImage']);
// How often ReadImage is asked again (each waits up to the server's bound, 5 s).
const READ_TRIES = 12;

// The documents by the API's `document_type`.
const DOCUMENTS = {
  'nid-front': 'National ID, front',
  'nid-back': 'National ID, back',
  'driver-licence': 'driving licence',
  'car-licence-front': 'car licence, front',
  'car-licence-back': 'car licence, back',
  passport: 'passport',
  'residence-permit': 'residence permit',
};

// What a person can do about each refusal (docs/http.md lists the reasons). The
// messages of IMAGE_TOO_SMALL and IMAGE_TOO_BLURRY say it themselves.
const ADVICE = {
  UNAUTHORIZED: 'Check the API key: the first `hawiya serve` prints one, `hawiya keys add` makes more.',
  INSUFFICIENT_CREDITS: 'This key has no credits left: use another key, or add one with `hawiya keys add --credits N`.',
  MISSING_FILE: 'Choose a file first.',
  EMPTY_FILE: 'The file is empty: choose another.',
  UNSUPPORTED_FORMAT: 'Choose a JPEG, PNG or PDF file: a scan or a photo of the document.',
  FILE_TOO_LARGE: 'Send a smaller file: a lower resolution or a stronger JPEG compression.',
  UPLOAD_TIMEOUT: 'The upload was too slow: check the connection and try again.',
  CORRUPT_FILE: 'The file is damaged: save, scan or photograph the document again.',
  IMAGE_TOO_LARGE: 'The image has too many pixels: send it scaled down.',
  NO_DOCUMENT_FOUND: 'No document was found: lay the card flat on a plain background that contrasts with it, with all four corners in the picture.',
  WRONG_ID_TYPE: 'Choose the document type that matches the picture (the message says which document was found).',
  INVALID_ID_TYPE: 'Choose a document type from the list.',
  QUEUE_FULL: 'The server is busy: try again in a few seconds.',
  OVERLOADED: 'The server is busy: try again in a few seconds.',
  SHUTTING_DOWN: 'The server is restarting: try again in a few seconds.',
  INTERNAL_ERROR: 'Try once more; if it fails again, tell the operator.',
};

const $ = (id) => document.getElementById(id);
const form = $('read-form');
const keyInput = $('api-key');
const idType = $('id-type');
const fileInput = $('file');
const submit = $('submit');
const statusLine = $('status');
const errorBox = $('error');
const output = $('output');
let previewUrl = null;

keyInput.value = sessionStorage.getItem(KEY_STORE) ?? '';
keyInput.addEventListener('input', () => sessionStorage.setItem(KEY_STORE, keyInput.value.trim()));

// The file: picked, or dropped anywhere on the drop zone.
const drop = $('drop');
drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  if (event.dataTransfer.files.length) {
    fileInput.files = event.dataTransfer.files;
    showPreview();
  }
});
fileInput.addEventListener('change', showPreview);

function showPreview() {
  const file = fileInput.files[0];
  const image = $('preview-image');
  if (previewUrl) URL.revokeObjectURL(previewUrl);
  previewUrl = null;
  $('preview').hidden = !file;
  if (!file) return;
  const isImage = file.type === 'image/jpeg' || file.type === 'image/png';
  image.hidden = !isImage;
  if (isImage) {
    previewUrl = URL.createObjectURL(file);
    image.src = previewUrl;
  } else {
    image.removeAttribute('src');
  }
  const kind = file.type === 'application/pdf' ? 'PDF: its first page is read' : (file.type || 'unknown type');
  $('preview-caption').textContent = `${file.name}, ${kilobytes(file.size)} (${kind})`;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = keyInput.value.trim();
  const file = fileInput.files[0];
  hideError();
  if (!key) return showError({ message: 'Enter an API key.' }, keyInput);
  if (!file) return showError({ message: 'Choose a file to read.' }, fileInput);
  output.hidden = true;
  submit.disabled = true;
  try {
    await read(key, file, idType.value);
  } catch (error) {
    showError({ message: `The service could not be reached (${error.message}).` });
  } finally {
    submit.disabled = false;
    statusLine.textContent = '';
  }
});

// Flow A (upload with the overlay, then ReadImage until the result), then Flow B.
async function read(key, file, type) {
  statusLine.textContent = 'Reading with Flow A…';
  const started = performance.now();
  const upload = await call(`uploadImage?ID_type=${type}&overlay=true`, { APIKEY: key }, file);
  const uploaded = performance.now() - started;
  if (!upload.ok) return showError(upload.body);
  let answer = null;
  for (let tries = 0; tries < READ_TRIES && !answer; tries++) {
    const reading = await call(`ReadImage?id=${encodeURIComponent(upload.body.id)}&isBlocked=true`, { APIKEY: key });
    if (!reading.ok) return showError(reading.body);
    if (Object.keys(reading.body.data).length) answer = reading;
  }
  if (!answer) return showError({ message: 'No result came within a minute: the server is very busy.' });
  const resulted = performance.now() - started;

  statusLine.textContent = 'Reading with Flow B…';
  const startedB = performance.now();
  const flowB = await call(`uploadImage?ID_type=${type}`, { Authorization: `Bearer ${key}` }, file);
  const answeredB = performance.now() - startedB;
  show(answer, flowB, { uploaded, resulted, answeredB });
}

// One API call; the body is JSON, errors included.
async function call(path, headers, file) {
  const init = { headers };
  if (file) {
    const form = new FormData();
    form.append('file', file, file.name);
    Object.assign(init, { method: 'POST', body: form });
  }
  const response = await fetch(`${PREFIX}/${path}`, init);
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = { code: response.status, message: text || response.statusText };
  }
  return { ok: response.ok, body, credits: response.headers.get('X-Credits-Remaining') };
}

function show(flowA, flowB, times) {
  const { overlay, ...answerA } = flowA.body;
  const credits = flowB.credits ?? flowA.credits;
  const summary = flowB.ok
    ? `${capitalized(DOCUMENTS[flowB.body.document_type] ?? flowB.body.document_type)} (${flowB.body.document_type}), read with an overall confidence of ${percent(flowB.body.confidence)}.`
    : `Flow B refused the file: ${flowB.body.reason ?? flowB.body.message}.`;
  $('summary').textContent = credits === null ? summary : `${summary} Credits left on this key: ${credits}.`;

  const frame = $('card-frame');
  frame.querySelectorAll('.box').forEach((box) => box.remove());
  $('overlay').src = overlay.image;
  const boxes = new Map();
  for (const field of overlay.fields) {
    const [x0, y0, x1, y1] = field.box;
    const box = document.createElement('div');
    box.className = 'box';
    Object.assign(box.style, {
      left: `${(100 * x0) / overlay.width}%`,
      top: `${(100 * y0) / overlay.height}%`,
      width: `${(100 * (x1 - x0)) / overlay.width}%`,
      height: `${(100 * (y1 - y0)) / overlay.height}%`,
    });
    frame.append(box);
    boxes.set(field.key, box);
  }

  const rows = $('result').tBodies[0];
  rows.replaceChildren();
  for (const [name, value] of Object.entries(answerA.data)) {
    if (SERVER_FIELDS.has(name) || value === '' || value === null) continue;
    const lines = overlay.fields.filter((field) => field.flow_a.includes(name));
    const review = lines.some((field) => field.confidence < REVIEW_BELOW);
    const row = rows.insertRow();
    row.tabIndex = 0;
    if (review) row.className = 'review';
    cell(row, name, 'th').scope = 'row';
    const shown = cell(row, value);
    shown.dir = 'auto';
    shown.className = 'value';
    const confidence = lines.length ? Math.min(...lines.map((field) => field.confidence)) : null;
    cell(row, confidence === null ? '–' : percent(confidence) + (review ? ' (review)' : ''));
    cell(row, lines.map((field) => field.key).join(', '));
    const light = (on) => lines.forEach((field) => boxes.get(field.key)?.classList.toggle('lit', on));
    for (const [start, end] of [['mouseenter', 'mouseleave'], ['focus', 'blur']]) {
      row.addEventListener(start, () => light(true));
      row.addEventListener(end, () => light(false));
    }
  }

  const timings = $('timings');
  timings.replaceChildren();
  term(timings, 'Flow A upload answered', ms(times.uploaded));
  term(timings, 'Flow A result read', `${ms(times.resulted)} after the upload began`);
  term(timings, 'Flow B answered', flowB.ok
    ? `${ms(times.answeredB)} (${flowB.body.response_time_ms} ms in the server)`
    : ms(times.answeredB));
  term(timings, 'Processed at', answerA.data.proccesstime);

  $('json-a').textContent = JSON.stringify(answerA, null, 2);
  $('json-b').textContent = JSON.stringify(flowB.body, null, 2);
  output.hidden = false;
}

function cell(row, text, tag = 'td') {
  const element = document.createElement(tag);
  element.textContent = text;
  row.append(element);
  return element;
}

function term(list, name, value) {
  const dt = document.createElement('dt');
  dt.textContent = name;
  const dd = document.createElement('dd');
  dd.textContent = value;
  list.append(dt, dd);
}

function showError(body, focus) {
  errorBox.replaceChildren();
  if (body.reason) {
    const code = document.createElement('code');
    code.textContent = body.reason;
    errorBox.append(code, ' ');
  }
  errorBox.append(body.message ?? 'The request failed.');
  const advice = ADVICE[body.reason];
  if (advice) {
    const what = document.createElement('p');
    what.textContent = `What to do: ${advice}`;
    errorBox.append(what);
  }
  errorBox.hidden = false;
  focus?.focus();
}

function hideError() {
  errorBox.hidden = true;
  errorBox.replaceChildren();
}

document.querySelectorAll('button.copy').forEach((button) => {
  button.addEventListener('click', async () => {
    const text = $(button.dataset.copy).textContent;
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Outside a secure context (plain HTTP to another host) there is no
      // clipboard API: copy through a selection instead.
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = 'Copy'; }, 1500);
  });
});

const capitalized = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const percent = (value) => `${Math.round(100 * value)} %`;
const ms = (value) => `${Math.round(value)} ms`;
const kilobytes = (bytes) => `${Math.max(1, Math.round(bytes / 1024))} kB`;
