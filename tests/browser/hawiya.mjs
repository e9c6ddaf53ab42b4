// Starts a real `hawiya serve` (the shipped models, a known key, a fresh data
// folder, a free port on loopback) and Debian's Chromium, for the browser tests and
// the README's screenshot.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const KEY = 'browser-test-key';
export const fixture = (name) => join(ROOT, 'tests/fixtures/docs', name);

/// `hawiya serve` from HAWIYA_BIN (default: the debug build), answering on
/// `server.base` once it is ready; `server.stop()` ends it.
export async function startServer() {
  const binary = process.env.HAWIYA_BIN ?? join(ROOT, 'target/debug/hawiya');
  const data = mkdtempSync(join(tmpdir(), 'hawiya-browser-'));
  const child = spawn(binary, ['serve', '--host', '127.0.0.1', '--port', '0',
    '--api-keys', KEY, '--data-dir', data], {
    cwd: ROOT,
    env: { ...process.env, RUST_LOG: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((_, reject) => child.once('exit', (code) =>
    reject(new Error(`hawiya serve exited with ${code} before it listened`))));
  const listening = new Promise((resolveBase) => {
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      const match = seen.match(/hawiya listening on (http:\/\/\S+)/);
      if (match) resolveBase(match[1]);
    });
  });
  const base = await Promise.race([listening, exited]);
  const stop = () => {
    child.kill('SIGTERM');
    rmSync(data, { recursive: true, force: true });
  };
  try {
    await untilReady(base);
  } catch (error) {
    stop();
    throw error;
  }
  return { base, stop };
}

async function untilReady(base) {
  for (let tries = 0; tries < 600; tries++) {
    const ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
    if (ready) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base} was not ready within a minute`);
}

/// Debian's Chromium, headless, with a fresh profile and no calls out.
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/// Fills the form and reads `file` (a path, or {name, mimeType, buffer}).
export async function readDocument(page, base, file, idType = '0') {
  await page.goto(`${base}/`);
  await page.fill('#api-key', KEY);
  await page.selectOption('#id-type', idType);
  await page.setInputFiles('#file', file);
  await page.click('#submit');
}
