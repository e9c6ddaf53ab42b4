// The README's picture of the demo page with a card read:
//   node tests/browser/screenshot.mjs OUT.jpg [DOCUMENT] [ID_TYPE]
// (default document: the National-ID front scan fixture; the server is HAWIYA_BIN,
// by default the debug build).
import { fixture, launchBrowser, readDocument, startServer } from './hawiya.mjs';

const [out = 'docs/demo.jpg', document = fixture('nid-front-scan.jpg'), idType = '0'] =
  process.argv.slice(2);
const server = await startServer();
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await readDocument(page, server.base, document, idType);
  await page.locator('#output').waitFor({ timeout: 60_000 });
  // One row in focus, its line lit on the card.
  await page.locator('#result tbody tr').first().focus();
  await page.screenshot({ path: out, fullPage: true, quality: out.endsWith('.png') ? undefined : 85 });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  server.stop();
}
