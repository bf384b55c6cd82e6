// The HTML report's script, written into every report: draws each canvas from its file's JSON when it
// scrolls into view (and again when its width changes), sorts the table by a clicked column, and filters
// it to failures.
"use strict";
(function () {
  const colours = { plot: "#f5f7fa", wave: "#1d4e89", lane: "#c9ced6", silence: "#6b7480",
    clip: "#e66100", peak: "#000000", marker: "#4d4d4d", loop: "#1b7837", band: "#d9efd3",
    bandEdge: "#3a8a45", curve: "#5e3c99", off: "#b35806", axis: "#333333", grid: "#dddddd" };
  const cache = new Map();
  function fileData(index) {
    if (!cache.has(index)) {
      const node = document.getElementById("file-" + index + "-data");
      cache.set(index, node ? JSON.parse(node.textContent) : null);
    }
    return cache.get(index);
  }
  function bytes(text) {
    const raw = atob(text), out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }
  function int16(text) {
    const raw = bytes(text), view = new DataView(raw.buffer), out = new Int16Array(raw.length >> 1);
    for (let i = 0; i < out.length; i++) out[i] = view.getInt16(2 * i, true);
    return out;
  }
  function setup(canvas, height) {
    canvas.style.height = height + "px";
    const ratio = window.devicePixelRatio || 1, width = Math.max(160, canvas.clientWidth);
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const g = canvas.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.font = "11px system-ui, sans-serif";
    g.textBaseline = "middle";
    return { g: g, width: width, height: height };
  }
  function hatch(g, x, y, w, h, colour) {
    if (w <= 0 || h <= 0) return;
    g.save();
    g.beginPath(); g.rect(x, y, w, h); g.clip();
    g.strokeStyle = colour; g.lineWidth = 1; g.beginPath();
    for (let i = -h; i < w; i += 6) { g.moveTo(x + i, y + h); g.lineTo(x + i + h, y); }
    g.stroke(); g.restore();
  }
  function niceStep(span, most) {
    const raw = span / most, power = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
    return 10 * power;
  }
  function timeAxis(g, left, right, y, duration) {
    if (!(duration > 0)) return;
    const step = niceStep(duration, Math.max(2, Math.floor((right - left) / 90)));
    g.fillStyle = colours.axis; g.strokeStyle = colours.axis; g.textAlign = "center";
    for (let t = 0; t <= duration + step / 1e6; t += step) {
      const x = left + t / duration * (right - left);
      g.beginPath(); g.moveTo(x, y); g.lineTo(x, y + 4); g.stroke();
      g.fillText((step < 0.01 ? t.toFixed(3) : step < 0.1 ? t.toFixed(2) : step < 1 ? t.toFixed(1) : t.toFixed(0)) + " s", x, y + 11);
    }
    g.textAlign = "left";
  }
  function drawWave(canvas, d) {
    const lanes = d.channels, laneHeight = 72;
    const { g, width, height } = setup(canvas, lanes * laneHeight + 36);
    const left = 64, right = width - 22, top = 16, bottom = top + lanes * laneHeight, span = right - left;
    const x = frame => left + (d.frames > 0 ? frame / d.frames : 0) * span;
    g.fillStyle = colours.plot; g.fillRect(left, top, span, bottom - top);
    for (const s of d.silence || []) hatch(g, x(s[0] * d.rate), top, x(s[1] * d.rate) - x(s[0] * d.rate), bottom - top, colours.silence);
    const values = int16(d.wave.data), spp = d.wave.spp, points = values.length / (2 * lanes);
    for (let lane = 0; lane < lanes; lane++) {
      const mid = top + laneHeight * (lane + 0.5), half = laneHeight / 2 - 3;
      if (lane > 0) { g.fillStyle = colours.lane; g.fillRect(left, top + laneHeight * lane, span, 1); }
      g.fillStyle = colours.axis; g.fillText((d.laneNames || [])[lane] || "ch " + (lane + 1), 4, mid);
      g.fillStyle = colours.wave;
      for (let px = 0; px < span; px++) {
        const from = Math.floor(px * d.frames / span / spp);
        const to = Math.min(points, Math.max(from + 1, Math.floor((px + 1) * d.frames / span / spp)));
        let low = 32767, high = -32768;
        for (let p = from; p < to; p++) {
          low = Math.min(low, values[(p * lanes + lane) * 2]);
          high = Math.max(high, values[(p * lanes + lane) * 2 + 1]);
        }
        if (low > high || (low === 0 && high === 0)) continue;
        const y1 = mid - high / 32768 * half, y2 = mid - low / 32768 * half;
        g.fillRect(left + px, y1, 1, Math.max(1, y2 - y1));
      }
    }
    // Every clipped stretch [first frame, last frame, runs]: shaded from its start to its end (a pixel at
    // least), a mark above its start.
    g.save(); g.globalAlpha = 0.35; g.fillStyle = colours.clip;
    for (const span of d.clips || []) {
      const x1 = x(span[0]), x2 = x(span[1] + 1);
      g.fillRect(x1, top, Math.max(1, x2 - x1), bottom - top);
    }
    g.restore();
    for (const span of d.clips || []) {
      const cx = x(span[0]);
      g.fillStyle = colours.clip; g.beginPath(); g.moveTo(cx - 5, 2); g.lineTo(cx + 5, 2); g.lineTo(cx, 12); g.closePath(); g.fill();
    }
    for (const marker of d.markers || []) {
      const mx = x(marker[0]);
      g.save(); g.setLineDash([1, 3]); g.strokeStyle = colours.marker;
      g.beginPath(); g.moveTo(mx + 0.5, top); g.lineTo(mx + 0.5, bottom); g.stroke(); g.restore();
      g.fillStyle = colours.marker; g.fillText(marker[1] || "marker", mx + 3, bottom - 8);
    }
    for (const loop of d.loops || []) {
      const a = x(loop[0]), b = x(loop[1]);
      g.strokeStyle = colours.loop; g.lineWidth = 2; g.beginPath();
      g.moveTo(a + 1, 13); g.lineTo(a + 1, 5); g.lineTo(b - 1, 5); g.lineTo(b - 1, 13); g.stroke(); g.lineWidth = 1;
    }
    if (d.truePeak) {
      const px = x(d.truePeak.frame), py = 8;
      g.fillStyle = colours.peak; g.strokeStyle = "#ffffff";
      g.beginPath(); g.moveTo(px, py - 6); g.lineTo(px + 6, py); g.lineTo(px, py + 6); g.lineTo(px - 6, py); g.closePath();
      g.fill(); g.stroke();
      const label = "true peak " + d.truePeak.db.toFixed(1) + " dBTP";
      g.textAlign = px > right - 120 ? "right" : "left";
      g.fillText(label, px + (px > right - 120 ? -9 : 9), py);
      g.textAlign = "left";
    }
    timeAxis(g, left, right, bottom, d.frames / d.rate);
  }
  function drawLoudness(canvas, d) {
    const { g, width, height } = setup(canvas, 170);
    const left = 64, right = width - 22, top = 8, bottom = height - 22, span = right - left;
    const values = d.curve.values;
    let floor = -60;
    for (const v of values) if (v !== null) floor = Math.min(floor, Math.floor((v - 3) / 10) * 10);
    if (d.band) floor = Math.min(floor, Math.floor((d.band[0] - 6) / 10) * 10);
    const y = l => top + (0 - l) / (0 - floor) * (bottom - top);
    g.fillStyle = "#ffffff"; g.fillRect(left, top, span, bottom - top);
    g.strokeStyle = colours.grid; g.fillStyle = colours.axis; g.textAlign = "right";
    for (let l = 0; l >= floor; l -= 10) {
      g.beginPath(); g.moveTo(left, y(l) + 0.5); g.lineTo(right, y(l) + 0.5); g.stroke();
      g.fillText(l + " LUFS", left - 4, y(l));
    }
    g.textAlign = "left";
    const step = span / Math.max(1, values.length);
    if (d.band) {
      g.fillStyle = colours.band; g.fillRect(left, y(d.band[1]), span, y(d.band[0]) - y(d.band[1]));
      g.save(); g.setLineDash([6, 3]); g.strokeStyle = colours.bandEdge;
      for (const edge of d.band) { g.beginPath(); g.moveTo(left, y(edge)); g.lineTo(right, y(edge)); g.stroke(); }
      g.restore();
      if (d.offBand) {
        values.forEach((v, i) => {
          if (v === null) return;
          const x0 = left + i * step;
          if (d.offBand === "above" && v > d.band[1]) hatch(g, x0, y(v), step + 0.5, y(d.band[1]) - y(v), colours.off);
          if (d.offBand === "below" && v < d.band[0]) hatch(g, x0, y(d.band[0]), step + 0.5, y(v) - y(d.band[0]), colours.off);
        });
      }
    }
    if (d.integrated !== undefined) {
      g.save(); g.setLineDash([2, 2]); g.strokeStyle = colours.axis;
      g.beginPath(); g.moveTo(left, y(d.integrated)); g.lineTo(right, y(d.integrated)); g.stroke(); g.restore();
      g.fillStyle = colours.axis; g.textAlign = "right";
      g.fillText("integrated " + d.integrated.toFixed(1), right - 2, y(d.integrated) - 7); g.textAlign = "left";
    }
    g.strokeStyle = colours.curve; g.lineWidth = 2; g.beginPath();
    let drawing = false;
    values.forEach((v, i) => {
      if (v === null) { drawing = false; return; }
      const px = left + (i + 0.5) * step;
      if (drawing) g.lineTo(px, y(v)); else { g.moveTo(px, y(v)); drawing = true; }
      if (values.length === 1) g.lineTo(px + 1, y(v));
    });
    g.stroke(); g.lineWidth = 1;
    timeAxis(g, left, right, bottom, d.frames / d.rate);
  }
  const ramp = [[0, 0, 4], [59, 15, 112], [140, 41, 129], [222, 73, 104], [254, 159, 109], [252, 253, 191]];
  function colourFor(level) {
    const t = level / 255 * (ramp.length - 1), i = Math.min(ramp.length - 2, Math.floor(t)), f = t - i;
    return ramp[i].map((c, k) => Math.round(c + (ramp[i + 1][k] - c) * f));
  }
  function drawSpectrogram(canvas, d) {
    const s = d.spectrogram;
    const { g, width, height } = setup(canvas, 130);
    const left = 64, right = width - 22, top = 4, bottom = height - 22;
    const image = document.createElement("canvas");
    image.width = s.columns; image.height = s.bands;
    const context = image.getContext("2d"), pixels = context.createImageData(s.columns, s.bands);
    const levels = bytes(s.data);
    for (let c = 0; c < s.columns; c++) for (let b = 0; b < s.bands; b++) {
      const rgb = colourFor(levels[c * s.bands + b]), at = ((s.bands - 1 - b) * s.columns + c) * 4;
      pixels.data[at] = rgb[0]; pixels.data[at + 1] = rgb[1]; pixels.data[at + 2] = rgb[2]; pixels.data[at + 3] = 255;
    }
    context.putImageData(pixels, 0, 0);
    g.imageSmoothingEnabled = false;
    g.drawImage(image, left, top, right - left, bottom - top);
    g.fillStyle = colours.axis; g.textAlign = "right";
    for (const f of [100, 1000, 10000]) {
      if (f <= s.low || f >= s.high) continue;
      const fy = bottom - Math.log(f / s.low) / Math.log(s.high / s.low) * (bottom - top);
      g.fillText(f >= 1000 ? f / 1000 + " kHz" : f + " Hz", left - 4, fy);
    }
    g.textAlign = "left";
    timeAxis(g, left, right, bottom, d.frames / d.rate);
  }
  function drawSeam(canvas, d, index) {
    const seam = d.seams[index], lanes = d.channels;
    const before = int16(seam.before), after = int16(seam.after);
    const { g, width, height } = setup(canvas, 130);
    const left = 64, right = width - 22, top = 8, bottom = height - 22, span = right - left;
    const count = before.length / lanes + after.length / lanes;
    let largest = 1;
    for (const v of before) largest = Math.max(largest, Math.abs(v));
    for (const v of after) largest = Math.max(largest, Math.abs(v));
    const y = v => (top + bottom) / 2 - v / largest * (bottom - top) / 2;
    const x = i => left + (i + 0.5) / count * span;
    g.fillStyle = colours.plot; g.fillRect(left, top, span, bottom - top);
    const wrap = left + before.length / lanes / count * span;
    g.save(); g.setLineDash([4, 3]); g.strokeStyle = colours.clip; g.lineWidth = 2;
    g.beginPath(); g.moveTo(wrap, top); g.lineTo(wrap, bottom); g.stroke(); g.restore();
    g.fillStyle = colours.axis; g.fillText("wrap", wrap + 4, top + 8);
    for (let lane = 0; lane < lanes; lane++) {
      const samples = [];
      for (let i = lane; i < before.length; i += lanes) samples.push(before[i]);
      for (let i = lane; i < after.length; i += lanes) samples.push(after[i]);
      g.save(); g.setLineDash(lane === 0 ? [] : [5, 2 + lane]); g.strokeStyle = colours.wave; g.beginPath();
      samples.forEach((v, i) => { if (i === 0) g.moveTo(x(i), y(v)); else g.lineTo(x(i), y(v)); });
      g.stroke(); g.restore();
    }
    g.fillStyle = colours.axis; g.textAlign = "center";
    g.fillText("frame " + seam.end + " (loop end)", left + (wrap - left) / 2, bottom + 11);
    g.fillText("frame " + seam.start + " (loop start)", wrap + (right - wrap) / 2, bottom + 11);
    g.textAlign = "left";
  }
  function draw(canvas) {
    const d = fileData(canvas.dataset.file);
    if (!d) return;
    switch (canvas.dataset.kind) {
      case "wave": drawWave(canvas, d); break;
      case "loudness": if (d.curve) drawLoudness(canvas, d); break;
      case "spectrogram": drawSpectrogram(canvas, d); break;
      case "seam": drawSeam(canvas, d, +canvas.dataset.seam); break;
    }
    canvas.dataset.drawnWidth = canvas.clientWidth;
  }
  const observer = new IntersectionObserver(entries => {
    for (const entry of entries) if (entry.isIntersecting) { observer.unobserve(entry.target); draw(entry.target); }
  }, { rootMargin: "400px 0px" });
  // What is in view when the page opens is drawn at once; the rest as it scrolls into view.
  document.querySelectorAll("canvas.plot").forEach(canvas => {
    const box = canvas.getBoundingClientRect();
    if (box.bottom > -400 && box.top < window.innerHeight + 400) draw(canvas); else observer.observe(canvas);
  });
  // Printing (or saving as PDF) draws every picture not drawn yet.
  window.addEventListener("beforeprint", () => {
    document.querySelectorAll("canvas.plot:not([data-drawn-width])").forEach(canvas => {
      observer.unobserve(canvas); draw(canvas);
    });
  });
  let resizing = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => {
      document.querySelectorAll("canvas.plot[data-drawn-width]").forEach(canvas => {
        if (+canvas.dataset.drawnWidth !== canvas.clientWidth) draw(canvas);
      });
    }, 150);
  });

  const table = document.getElementById("files");
  const rows = () => Array.from(table.tBodies[0].rows);
  table.querySelectorAll("th button").forEach((button, column) => {
    button.addEventListener("click", () => {
      const header = button.parentElement, ascending = header.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(th => th.setAttribute("aria-sort", "none"));
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      const numeric = button.dataset.kind === "number";
      const key = row => {
        const cell = row.cells[column], value = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent;
        return numeric ? (value === "" ? NaN : Number(value)) : value;
      };
      const sorted = rows().sort((a, b) => {
        const p = key(a), q = key(b);
        if (numeric) {
          if (isNaN(p) || isNaN(q)) return isNaN(p) ? (isNaN(q) ? 0 : 1) : -1;
          return ascending ? p - q : q - p;
        }
        return ascending ? p.localeCompare(q) : q.localeCompare(p);
      });
      sorted.forEach(row => table.tBodies[0].appendChild(row));
    });
  });
  const only = document.getElementById("only-failures"), shown = document.getElementById("shown");
  function filter() {
    let count = 0;
    for (const row of rows()) { row.hidden = only.checked && row.dataset.failed !== "yes"; if (!row.hidden) count++; }
    document.querySelectorAll("section.file").forEach(section => {
      section.hidden = only.checked && section.dataset.failed !== "yes";
    });
    shown.textContent = "(" + count + " of " + rows().length + " files shown)";
  }
  only.addEventListener("change", filter);
  filter();
})();
