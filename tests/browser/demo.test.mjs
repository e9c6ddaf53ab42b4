// The demo page in a real browser against a real `hawiya serve` with the shipped
// models: `node --test tests/browser/` (scripts/browser_test.sh installs and builds
// what it needs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { KEY, fixture, launchBrowser, readDocument, startServer } from './hawiya.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

test('a card read in the browser shows its national ID in the fields table', async () => {
  const page = await browser.newPage();
  const outside = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(server.base) && !request.url().startsWith('data:')
      && !request.url().startsWith('blob:')) outside.push(request.url());
  });
  await readDocument(page, server.base, fixture('nid-front-scan.jpg'));
  // The fixture's truth: tests/fixtures/docs/truth.jsonl.
  await page.locator('#result').getByText('30603292371013').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#error').isHidden(), true);
  const name = page.locator('#result tr', { hasText: 'firstname' }).locator('td.value');
  assert.equal(await name.getAttribute('dir'), 'auto');
  assert.match(await name.textContent(), /\p{Script=Arabic}/u);
  const card = await page.locator('#overlay').evaluate((img) => [img.complete, img.naturalWidth]);
  assert.deepEqual(card, [true, 1000]);
  assert.match(await page.locator('#json-b').textContent(), /"document_type": "nid-front"/);
  assert.doesNotMatch(await page.locator('#json-a').textContent(), /base64/);
  assert.deepEqual(outside, [], 'the page loads nothing from elsewhere');
  await page.close();
});

test('a file that is not an image shows the reason in the error box', async () => {
  const page = await browser.newPage();
  await readDocument(page, server.base, {
    name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a document'),
  });
  const error = page.locator('#error');
  await error.getByText('UNSUPPORTED_FORMAT').waitFor({ timeout: 30_000 });
  assert.match(await error.textContent(), /JPEG, PNG or PDF/);
  assert.equal(await page.locator('#output').isHidden(), true);
  await page.close();
});

// The file chooser that pressing `key` opens, pressed again when none opens within
// 10 s (three presses at most): on a loaded machine headless Chromium now and then
// lets the first press go by, as a person would press again.
async function chooserOpenedBy(page, key) {
  for (let presses = 1; ; presses++) {
    try {
      const [chooser] = await Promise.all([
        page.waitForEvent('filechooser', { timeout: 10_000 }),
        page.keyboard.press(key),
      ]);
      return chooser;
    } catch (error) {
      if (presses === 3) throw error;
    }
  }
}

test('on a phone-sized screen the form works from the keyboard alone', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
  await page.goto(`${server.base}/demo`);
  await page.focus('#api-key');
  await page.keyboard.type(KEY);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'id-type');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'file');
  const chooser = await chooserOpenedBy(page, 'Space');
  await chooser.setFiles(fixture('nid-front-scan.jpg'));
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'submit');
  await page.keyboard.press('Enter');
  await page.locator('#result').getByText('30603292371013').waitFor({ timeout: 60_000 });
  // Nothing wider than the screen: the table scrolls inside its own box.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
  await page.close();
});
