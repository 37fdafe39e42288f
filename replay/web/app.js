// fix2d web page: runs catalogue scenes live at 60 Hz in WebAssembly, the conformance
// self-test in slices, and verifies replays with fix2d-replay's own verify. Numbers here are
// for drawing only: every simulated bit comes from fix2d.wasm.
// SPDX-License-Identifier: MIT
'use strict';
(async function () {
  const $ = (id) => document.getElementById(id);
  let sink = null; // lines printed by the wasm program (verify's output)
  const M = await createFix2d({
    print: (line) => { if (sink) sink.push(line); else console.log(line); },
    printErr: (line) => { if (sink) sink.push(line); else console.warn(line); },
  });
  const api = {
    sceneCount: M.cwrap('web_scene_count', 'number', []),
    sceneName: M.cwrap('web_scene_name', 'string', ['number']),
    sceneDescription: M.cwrap('web_scene_description', 'string', ['number']),
    load: M.cwrap('web_load_scene', 'number', ['string']),
    step: M.cwrap('web_step', 'number', ['number']),
    steps: M.cwrap('web_steps', 'number', []),
    hash: M.cwrap('web_hash', 'string', []),
    draw: M.cwrap('web_draw', 'number', []),
    frame: M.cwrap('web_frame', 'number', []),
    buffer: M.cwrap('web_draw_buffer', 'number', []),
    selftestBegin: M.cwrap('web_selftest_begin', null, []),
    selftestAdvance: M.cwrap('web_selftest_advance', 'number', ['number']),
    selftestSteps: M.cwrap('web_selftest_steps', 'number', []),
    selftestMessage: M.cwrap('web_selftest_message', 'string', []),
    verify: M.cwrap('web_verify', 'number', ['string']),
    fingerprint: M.cwrap('web_fingerprint', 'string', []),
  };

  // ---- colours: fix2d-replay render's palette (replay/render.c) ----
  const BG = [0.10, 0.10, 0.12];
  const CLASS = [[0.50, 0.90, 0.50], [0.50, 0.50, 0.90], [0.90, 0.70, 0.70], [0.60, 0.60, 0.60]];
  const JOINT = [0.50, 0.80, 0.80];
  const TEXT = [0.95, 0.95, 0.95];
  const css = (c) => `rgb(${Math.round(c[0] * 255)},${Math.round(c[1] * 255)},${Math.round(c[2] * 255)})`;
  const fill = (c, k) => css([0, 1, 2].map((i) => BG[i] + (c[i] - BG[i]) * k));

  const canvas = $('view');
  const ctx = canvas.getContext('2d');
  let view = { ox: 0, oy: 0, s: 1 };
  let sceneName = '';
  let playing = true;

  // render.c's fit(): the moving shapes' box with margins and room for the label
  function fit() {
    let b = [-10, -1, 10, 14];
    if (api.frame() === 4) {
      const f = new Float32Array(M.HEAPF32.buffer, api.buffer(), 4);
      b = [f[0], f[1], f[2], f[3]];
    }
    const mx = Math.max(1, 0.08 * (b[2] - b[0])), my = Math.max(1, 0.08 * (b[3] - b[1]));
    b[0] -= mx; b[2] += mx; b[1] -= my; b[3] += my + 0.06 * (b[3] - b[1]) + 0.5;
    const s = Math.min(canvas.width / (b[2] - b[0]), canvas.height / (b[3] - b[1]));
    view = { s, ox: canvas.width / 2 - s * (b[0] + b[2]) / 2, oy: canvas.height / 2 + s * (b[1] + b[3]) / 2 };
    // the mapping, for tests and tools: pixel = (ox + x s, oy - y s), as fix2d-replay render prints
    canvas.dataset.ox = String(view.ox);
    canvas.dataset.oy = String(view.oy);
    canvas.dataset.s = String(view.s);
  }
  const px = (x) => view.ox + x * view.s;
  const py = (y) => view.oy - y * view.s;

  function draw() {
    ctx.fillStyle = css(BG);
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const n = api.draw();
    const d = n > 0 ? new Float32Array(M.HEAPF32.buffer, api.buffer(), n) : new Float32Array(0);
    ctx.lineWidth = Math.max(1, Math.min(2, view.s * 0.03));
    for (let i = 0; i < n;) {
      const kind = d[i];
      if (kind === 1 || kind === 2) {
        const cls = d[i + 1], c = CLASS[cls];
        ctx.beginPath();
        let cx, cy, ex, ey;
        if (kind === 1) {
          const count = d[i + 2];
          for (let k = 0; k < count; ++k) {
            const x = px(d[i + 3 + 2 * k]), y = py(d[i + 4 + 2 * k]);
            if (k === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
          }
          ctx.closePath();
          const e = i + 3 + 2 * count;
          [cx, cy, ex, ey] = [d[e], d[e + 1], d[e + 2], d[e + 3]];
          i = e + 4;
        } else {
          [cx, cy] = [d[i + 2], d[i + 3]];
          ctx.arc(px(cx), py(cy), d[i + 4] * view.s, 0, 2 * Math.PI);
          [ex, ey] = [d[i + 5], d[i + 6]];
          i += 7;
        }
        ctx.fillStyle = fill(c, cls === 3 ? 0.3 : 0.5);
        ctx.fill();
        ctx.strokeStyle = css(c);
        ctx.stroke();
        if (cls !== 0) { // rotation mark: centre to the local +x side
          ctx.beginPath();
          ctx.moveTo(px(cx), py(cy));
          ctx.lineTo(px(ex), py(ey));
          ctx.stroke();
        }
      } else if (kind === 3) {
        ctx.save();
        ctx.lineWidth = 1.5;
        ctx.strokeStyle = ctx.fillStyle = css(JOINT);
        ctx.beginPath();
        ctx.moveTo(px(d[i + 1]), py(d[i + 2]));
        if (d[i + 3]) { ctx.lineTo(px(d[i + 4]), py(d[i + 5])); ctx.moveTo(px(d[i + 1]), py(d[i + 2])); }
        ctx.lineTo(px(d[i + 6]), py(d[i + 7]));
        if (d[i + 8]) ctx.lineTo(px(d[i + 9]), py(d[i + 10]));
        ctx.stroke();
        ctx.beginPath();
        ctx.arc(px(d[i + 1]), py(d[i + 2]), 2.5, 0, 2 * Math.PI);
        ctx.fill();
        ctx.restore();
        i += 11;
      } else {
        break; // unknown record: stop drawing rather than misread
      }
    }
    // the label, as render.c's: scene, step and state hash
    const step = api.steps(), hash = api.hash();
    ctx.fillStyle = css(TEXT);
    ctx.font = '14px monospace';
    ctx.fillText(`${sceneName}  step ${step}  hash ${hash}`, 10, 20);
    $('step').textContent = String(step);
    $('hash').textContent = hash;
  }

  function loadScene(name) {
    const r = api.load(name);
    if (r !== 0) throw new Error(`cannot build scene ${name}: ${r}`);
    sceneName = name;
    fit();
    draw();
  }

  // ---- the scene list and the controls ----
  const select = $('scene');
  for (let i = 0; i < api.sceneCount(); ++i) {
    const o = document.createElement('option');
    o.value = o.textContent = api.sceneName(i);
    o.title = api.sceneDescription(i);
    select.appendChild(o);
  }
  const params = new URLSearchParams(location.search);
  select.value = params.get('scene') || 'pyramid20';
  playing = params.get('paused') === null;
  $('play').textContent = playing ? 'pause' : 'play';
  loadScene(select.value);
  select.onchange = () => loadScene(select.value);
  $('play').onclick = () => { playing = !playing; $('play').textContent = playing ? 'pause' : 'play'; };
  $('step1').onclick = () => { api.step(1); draw(); };
  $('reset').onclick = () => loadScene(select.value);
  $('runto').onclick = () => {
    // the scene from its start to exactly step N, then paused
    const n = Math.max(1, Math.floor(Number($('target').value) || 1));
    playing = false;
    $('play').textContent = 'play';
    loadScene(select.value);
    api.step(n);
    draw();
  };

  // 60 Hz: the world's time step is 1/60 s; at most 4 steps per animation frame
  let last = performance.now(), owed = 0;
  function tick(now) {
    if (playing) {
      owed = Math.min(owed + (now - last) * 60 / 1000, 4);
      const n = Math.floor(owed);
      if (n > 0) { api.step(n); owed -= n; draw(); }
    }
    last = now;
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);

  // ---- the conformance self-test, in slices of about 10 ms ----
  $('fingerprint').textContent = api.fingerprint();
  let selftestToken = 0;
  function runSelftest() {
    const token = ++selftestToken;
    const out = $('selftest');
    out.dataset.status = 'running';
    out.className = 'mono';
    api.selftestBegin();
    const slice = () => {
      if (token !== selftestToken) return;
      const t0 = performance.now();
      let st = 0;
      while ((st = api.selftestAdvance(100)) === 0 && performance.now() - t0 < 10) { /* more */ }
      if (st === 0) {
        out.textContent = `running... ${api.selftestSteps()} steps identical so far`;
        setTimeout(slice, 0);
        return;
      }
      out.textContent = api.selftestMessage();
      out.dataset.status = st === 1 ? 'ok' : 'failed';
      out.className = 'mono ' + (st === 1 ? 'ok' : 'bad');
    };
    setTimeout(slice, 0);
  }
  $('selftest-run').onclick = runSelftest;
  runSelftest();

  // ---- replays: fix2d-replay verify, in wasm ----
  async function verifyFile(file) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const path = '/replay.f2r';
    M.FS.writeFile(path, bytes);
    sink = [];
    let status;
    try { status = api.verify(path); } finally { /* keep the lines */ }
    const lines = sink;
    sink = null;
    M.FS.unlink(path);
    const out = $('verify');
    out.textContent = `${file.name} (${bytes.length} bytes): verify exit ${status}\n` + lines.join('\n');
    out.dataset.status = String(status);
    out.className = 'mono ' + (status === 0 ? 'ok' : 'bad');
  }
  $('file').onchange = (e) => { if (e.target.files[0]) verifyFile(e.target.files[0]); };
  const drop = $('drop');
  drop.ondragover = (e) => { e.preventDefault(); drop.classList.add('over'); };
  drop.ondragleave = () => drop.classList.remove('over');
  drop.ondrop = (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    if (e.dataTransfer.files[0]) verifyFile(e.dataTransfer.files[0]);
  };

  document.body.dataset.ready = '1';
})().catch((e) => {
  document.body.dataset.ready = 'error';
  document.body.insertAdjacentText('afterbegin', 'fix2d failed to start: ' + e);
});
