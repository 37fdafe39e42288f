// fix2d's web page in a real browser: Debian's headless chromium driven by playwright-core.
// Serves the page from 127.0.0.1 (this script's own tiny server) and checks:
//  1. pyramid20 run to step 300 in the page shows the golden chain's step-300 hash;
//  2. the page's conformance self-test says exactly the native `fix2d-replay selftest` line;
//  3. a screenshot of the canvas, by pixels: the background, body fill at the pixel of every
//     dynamic body's centre as the native build computes it, the filled area against the
//     boxes' area, the ground's colour, the label;
//  4. replays verified in the page (file picker and drag and drop) give the native verdict:
//     the same lines and exit status as `fix2d-replay verify`.
// No request may leave 127.0.0.1. Prints 'web: N passed, M failed'; exit 0 only when all pass.
// usage: node browser_test.mjs WWW_DIR EXPECT.json  (EXPECT: written by tests/web/run.sh)
// SPDX-License-Identifier: MIT
import { createServer } from 'node:http';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, extname, normalize } from 'node:path';
import { inflateSync } from 'node:zlib';
import { createRequire } from 'node:module';

// playwright-core from the build tree's npm folder (tests/web/run.sh installs it there)
const { chromium } = createRequire(join(process.env.F2D_NPM_DIR || '.', 'package.json'))('playwright-core');

const [www, expectPath] = process.argv.slice(2);
const expect = JSON.parse(readFileSync(expectPath, 'utf8'));
let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log(`ok: ${name}`); } else { failed++; console.log(`FAIL: ${name} ${detail}`); }
}

// ---- a static server on 127.0.0.1, any free port ----
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^\/+/, '');
  const file = join(www, path || 'index.html');
  if (!file.startsWith(www) || !existsSync(file)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

// ---- PNG decoding (8-bit RGB/RGBA, not interlaced: what chromium writes) ----
function decodePng(buf) {
  let p = 8, width = 0, height = 0, type = 0, idat = [];
  while (p < buf.length) {
    const len = buf.readUInt32BE(p), kind = buf.toString('ascii', p + 4, p + 8);
    const data = buf.subarray(p + 8, p + 8 + len);
    if (kind === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('PNG: only 8-bit, not interlaced');
      type = data[9];
    } else if (kind === 'IDAT') idat.push(data);
    p += 12 + len;
  }
  const bpp = type === 6 ? 4 : type === 2 ? 3 : 0;
  if (!bpp) throw new Error(`PNG colour type ${type}`);
  const raw = inflateSync(Buffer.concat(idat)), stride = width * bpp;
  const px = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; ++y) {
    const f = raw[y * (stride + 1)], line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; ++i) {
      const a = i >= bpp ? line[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
      line[i] = (line[i] + [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f]) & 255;
    }
    for (let x = 0; x < width; ++x) {
      for (let k = 0; k < 3; ++k) px[(y * width + x) * 4 + k] = line[x * bpp + k];
      px[(y * width + x) * 4 + 3] = bpp === 4 ? line[x * bpp + 3] : 255;
    }
    prev = line;
  }
  return { width, height, px };
}

// ---- the browser ----
const browser = await chromium.launch({
  executablePath: process.env.F2D_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let exitCode = 1;
try {
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const outside = [];
  await page.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.hostname === '127.0.0.1' || u.protocol === 'data:' || u.protocol === 'blob:') return route.continue();
    outside.push(u.href);
    return route.abort();
  });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}/index.html?paused=1`);
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60000 });
  check('page starts', await page.evaluate(() => document.body.dataset.ready) === '1', errors.join('; '));

  // 1. pyramid20 to step 300
  await page.selectOption('#scene', 'pyramid20');
  await page.fill('#target', '300');
  await page.click('#runto');
  const step = await page.textContent('#step'), hash = await page.textContent('#hash');
  check(`pyramid20 step 300 hash in the page = golden ${expect.pyramid20_300}`,
    step === '300' && hash === expect.pyramid20_300, `(page: step ${step} hash ${hash})`);

  // 3. the screenshot, by pixels
  // the canvas's content box (inside its border), at whole pixels
  const clip = await page.evaluate(() => {
    const c = document.getElementById('view'), r = c.getBoundingClientRect();
    return { x: Math.round(r.left + c.clientLeft), y: Math.round(r.top + c.clientTop), width: c.width, height: c.height };
  });
  const png = await page.screenshot({ clip });
  writeFileSync(expect.screenshot, png);
  const img = decodePng(png);
  const at = (x, y) => { const i = (Math.round(y) * img.width + Math.round(x)) * 4; return [img.px[i], img.px[i + 1], img.px[i + 2]]; };
  const near = (c, want, tol = 3) => c.every((v, k) => Math.abs(v - want[k]) <= tol);
  const mix = (c, k) => [0.10, 0.10, 0.12].map((b, i) => Math.round((b + (c[i] - b) * k) * 255));
  const BG = mix([0, 0, 0], 0), DYN = mix([0.9, 0.7, 0.7], 0.5), SLEEP = mix([0.6, 0.6, 0.6], 0.3);
  const STATIC = mix([0.5, 0.9, 0.5], 0.5);
  const view = await page.evaluate(() => { const d = document.getElementById('view').dataset; return [+d.ox, +d.oy, +d.s]; });
  const [ox, oy, s] = view;
  check('screenshot is the 800x600 canvas', img.width === 800 && img.height === 600, `${img.width}x${img.height}`);
  check('background pixel (bottom right corner)', near(at(img.width - 3, img.height - 3), BG), String(at(img.width - 3, img.height - 3)));
  // every dynamic body, where the native build says it is at step 300, is body fill: the
  // point a quarter metre below its centre (the centre itself is on the rotation mark)
  let onFill = 0;
  const missed = [];
  for (const [id, x, y] of expect.bodies) {
    const c = at(ox + x * s, oy - (y - 0.25) * s);
    if (near(c, DYN) || near(c, SLEEP)) onFill++; else missed.push(`${id}:${c}`);
  }
  check(`all ${expect.bodies.length} native body centres are on body fill in the screenshot`,
    onFill === expect.bodies.length, `(${onFill}; missed ${missed.slice(0, 5).join(' ')})`);
  // the filled area: the boxes' 1 m x 1 m interiors at s px per metre, less the outline
  // (lw wide, antialiased over up to twice that at fractional positions) and the rotation
  // mark (half a metre, up to 2 lw wide)
  let fillCount = 0, staticCount = 0, textCount = 0;
  for (let y = 0; y < img.height; ++y) {
    for (let x = 0; x < img.width; ++x) {
      const c = at(x, y);
      if (near(c, DYN) || near(c, SLEEP)) fillCount++;
      else if (near(c, STATIC)) staticCount++;
      else if (y < 28 && x < 560 && c[0] > 200 && c[1] > 200 && c[2] > 200) textCount++;
    }
  }
  const lw = Math.max(1, Math.min(2, s * 0.03));
  const wantFill = expect.bodies.length * ((s - 2 * lw) ** 2 - s * lw);
  check(`body fill area ${fillCount} px within 5% of ${Math.round(wantFill)} (${expect.bodies.length} boxes at ${s.toFixed(2)} px/m)`,
    Math.abs(fillCount - wantFill) <= 0.05 * wantFill);
  check(`the ground is drawn in the static colour (${staticCount} px)`, staticCount > 200);
  check(`the label is drawn (${textCount} white px)`, textCount > 100);

  // 2. the self-test
  await page.waitForFunction(() => document.getElementById('selftest').dataset.status !== 'running', null, { timeout: 300000 });
  const selftest = (await page.textContent('#selftest')).trim();
  check(`page self-test says '${expect.selftest}'`, selftest === expect.selftest, `(page: '${selftest}')`);

  // 4. replays: the native verdict, by the file picker, then by drag and drop
  for (const [i, r] of expect.replays.entries()) {
    await page.evaluate(() => { document.getElementById('verify').dataset.status = 'none'; });
    if (i % 2 === 0) {
      await page.setInputFiles('#file', r.path);
    } else {
      const bytes = [...readFileSync(r.path)];
      const dt = await page.evaluateHandle(([b, name]) => {
        const t = new DataTransfer();
        t.items.add(new File([new Uint8Array(b)], name));
        return t;
      }, [bytes, r.path.split('/').pop()]);
      await page.dispatchEvent('#drop', 'drop', { dataTransfer: dt });
    }
    await page.waitForFunction(() => document.getElementById('verify').dataset.status !== 'none', null, { timeout: 60000 });
    const text = await page.textContent('#verify');
    const status = Number(await page.evaluate(() => document.getElementById('verify').dataset.status));
    const lines = text.split('\n').slice(1).join('\n').trim();
    check(`${r.path.split('/').pop()} (${i % 2 ? 'dropped' : 'picked'}): page's verify = native (exit ${r.status}, '${r.output.split('\n')[0]}')`,
      status === r.status && lines === r.output.trim(), `(page: exit ${status}:\n${lines})`);
  }
  check('no request left 127.0.0.1', outside.length === 0, outside.slice(0, 3).join(' '));
  check('no page errors', errors.length === 0, errors.join('; '));
  exitCode = failed === 0 ? 0 : 1;
} finally {
  await browser.close();
  server.close();
}
console.log(`web: ${passed} passed, ${failed} failed`);
process.exit(exitCode);
