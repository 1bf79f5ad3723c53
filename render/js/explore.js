// report.html you can explore (docs/report-explore.md). cgmem embeds this
// script and, per device, a JSON data element of class cgx-data that it
// reads; with scripts off the page is the static one. This file holds the
// shared drawing and the report's explorer; explore_views.js, appended to
// it by render/js/embed.cmake inside the same closure, holds diff.html's
// explorer, the segment view and the start-up.
// No framework, no network: everything is drawn from the embedded data,
// and every text from the trace goes in through textContent, never markup.
'use strict';
(function () {
  var SVGNS = 'http://www.w3.org/2000/svg';
  var INK = '#1a1a1a', SECONDARY = '#555', GRID = '#e8e8e8', AXES = '#444';
  var LANE = ['#f6f6f6', '#c9ddf1', '#f8cfc2', '#f3e7ae'];
  var STRIDE0 = 6; // t, record, action, bytes, op, path; then categories

  var CSS =
    '.cgx{margin:16px 0 28px;border:1px solid #e2e2e2;padding:10px 12px;background:#fff}' +
    '.cgx .cgx-title{font-weight:600;font-size:16px;margin:0 0 6px}' +
    '.cgx .cgx-help{color:#666;font-size:13px;margin:0 0 6px;max-width:none}' +
    '.cgx .cgx-bar{display:flex;flex-wrap:wrap;gap:6px;align-items:center;font-size:13px;margin:4px 0}' +
    '.cgx button{font:inherit;font-size:13px;padding:2px 8px;border:1px solid #ccc;background:#fafafa;' +
    'border-radius:3px;cursor:pointer;color:#1a1a1a}' +
    '.cgx select{font:inherit;font-size:13px;padding:2px 4px}' +
    '.cgx button[aria-pressed=false]{opacity:.45;text-decoration:line-through}' +
    '.cgx .sw{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}' +
    '.cgx .cgx-plot{position:relative;touch-action:none;user-select:none}' +
    '.cgx svg{display:block;width:100%;border:none;cursor:crosshair}' +
    '.cgx .cgx-tip{position:absolute;pointer-events:none;background:rgba(255,255,255,.96);' +
    'border:1px solid #bbb;padding:6px 8px;font-size:12px;line-height:1.35;max-width:420px;' +
    'box-shadow:0 1px 4px rgba(0,0,0,.15);display:none;overflow-wrap:anywhere;z-index:2}' +
    '.cgx .cgx-tip b{font-weight:600}' +
    '.cgx .cgx-pin{margin-top:8px;font-size:13px}' +
    '.cgx .cgx-pin table{font-size:13px}' +
    '.cgx .cgx-pin td,.cgx .cgx-pin th{padding:3px 8px}' +
    '.cgx .cgx-pin td.cgx-path{overflow-wrap:anywhere;min-width:24ch;max-width:60ch}' +
    '.cgx .cgx-seg{margin-top:10px}' +
    '@media print{.cgx{display:none}}' +
    // The browser lays out and paints a table or chart of the static page
    // only once it nears the screen: a big trace's report holds tables of
    // thousands of rows and megabytes of inline SVG, which otherwise keep
    // the parser (and the second device's explorer) waiting for seconds.
    // The explorer's own tables are drawn at once; paper gets everything.
    '@media screen{.tw,figure{content-visibility:auto;contain-intrinsic-size:auto 420px}.cgx .tw{content-visibility:visible}}';

  // --- numbers as the house style writes them (src/util/units.c) ---
  function fmtBytes(b) {
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
    if (b < 1024) return Math.round(b) + ' B';
    var u = 0, v = b;
    while (v >= 1024 && u < 6) { v /= 1024; u++; }
    if (v >= 999.95 && u < 6) { v /= 1024; u++; }
    return v.toFixed(v < 100 ? 2 : 1) + ' ' + units[u];
  }
  function g3(v) { return String(Number(v.toPrecision(3))); }
  function fmtTime(ns, data) {
    if (data && data.time_is_index) return 'entry ' + Math.round(ns);
    if (ns >= 1e8) return (ns * 1e-9).toFixed(3) + ' s';
    if (ns >= 1e6) return g3(ns * 1e-6) + ' ms';
    if (ns >= 1e3) return g3(ns * 1e-3) + ' \u00b5s';
    return Math.round(ns) + ' ns';
  }
  function fmtCount(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }

  // Nice ticks: 1, 2, 5 x 10^k for time; 1, 2, 4, 8 x 2^k for bytes.
  function timeTicks(lo, hi, n) {
    var span = hi - lo;
    if (span <= 0) return [lo];
    var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw))), step = p;
    [1, 2, 5, 10].some(function (m) { step = m * p; return step >= raw; });
    var out = [];
    for (var t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(t);
    return out;
  }
  function byteTicks(max, n) {
    if (max <= 0) return { step: 1, top: 1 };
    var raw = max / n, p = Math.pow(2, Math.floor(Math.log2(raw))), step = p;
    [1, 2, 4, 8].some(function (m) { step = m * p; return step >= raw; });
    if (step >= 1024) { // 1, 2, 5 x 10^k of the unit reads better than 4 and 8 in the middle
      step = Math.max(1, step);
    }
    return { step: step, top: Math.ceil(max / step) * step };
  }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // The last index i in [0, n) with key(i) <= v, -1 when none.
  function lastAtOrBefore(n, key, v) {
    var lo = 0, hi = n - 1, r = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (key(mid) <= v) { r = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return r;
  }

  // The grid, the byte axis and the re-ticked time axis of an explorer
  // (ex: its svg, geometry g, range x0..x1, xOf and fmtT).
  function axes(ex, bt, yOf) {
    var g = ex.g, svg = ex.svg;
    for (var v = 0; v <= bt.top + bt.step / 2; v += bt.step) {
      var y = Math.floor(yOf(v)) + 0.5;
      svg.appendChild(sv('line', { x1: g.x0, x2: g.x1, y1: y, y2: y, stroke: GRID }));
      svg.appendChild(sv('text', { x: g.x0 - 6, y: y + 4, 'text-anchor': 'end', 'font-size': 11, fill: SECONDARY,
        class: 'cgx-ytick' }, fmtBytes(v)));
    }
    var xt = timeTicks(ex.x0, ex.x1, Math.max(2, Math.floor((g.x1 - g.x0) / 110)));
    xt.forEach(function (t) {
      var x = Math.floor(ex.xOf(t)) + 0.5;
      svg.appendChild(sv('line', { x1: x, x2: x, y1: g.y1, y2: g.y1 + 4, stroke: AXES }));
      svg.appendChild(sv('text', { x: x, y: g.y1 + 17, 'text-anchor': 'middle', 'font-size': 11, fill: SECONDARY,
        class: 'cgx-xtick' }, ex.fmtT(t)));
    });
    svg.appendChild(sv('line', { x1: g.x0, x2: g.x1, y1: g.y1 + 0.5, y2: g.y1 + 0.5, stroke: AXES }));
    svg.appendChild(sv('line', { x1: g.x0 - 0.5, x2: g.x0 - 0.5, y1: g.y0, y2: g.y1, stroke: AXES }));
  }

  // --- one device's explorer ---
  // Under an explorer's bar: the plot with its tooltip, then the pinned
  // panel; the box goes in before the data element and the events start.
  function mount(self, box, where, label) {
    var plot = el('div', { class: 'cgx-plot' });
    self.svg = sv('svg', { class: 'cgx-svg', role: 'img', 'aria-label': label });
    self.tip = el('div', { class: 'cgx-tip', role: 'status' });
    plot.appendChild(self.svg);
    plot.appendChild(self.tip);
    box.appendChild(plot);
    self.plotBox = plot;
    self.pin = el('div', { class: 'cgx-pin', 'aria-live': 'polite' });
    box.appendChild(self.pin);
    where.parentNode.insertBefore(box, where);
    self.events();
  }

  function Explorer(data, where) {
    var self = this;
    this.d = data;
    this.K = data.categories.length;
    this.stride = STRIDE0 + this.K;
    var P = data.points, n = P.length / this.stride;
    this.n = n;
    this.T = new Float64Array(n);
    this.tot = new Float64Array(n);
    for (var i = 0; i < n; i++) {
      this.T[i] = P[i * this.stride];
      var s = 0;
      for (var c = 0; c < this.K; c++) s += P[i * this.stride + STRIDE0 + c];
      this.tot[i] = s;
    }
    this.on = data.categories.map(function () { return true; });
    // All records at one time (a snapshot without times): the axis is the
    // records' order instead.
    this.byRecord = n > 2 && this.T[n - 1] === this.T[0];
    if (this.byRecord) for (var r = 0; r < n; r++) this.T[r] = r;
    this.peakT = this.T[data.peak.point];
    this.t0 = this.T[0];
    this.t1 = n > 1 ? this.T[n - 1] : this.T[0] + 1;
    if (this.t1 <= this.t0) this.t1 = this.t0 + 1;
    this.x0 = this.t0; this.x1 = this.t1;
    this.pinned = null;
    this.build(where);
    this.draw();
    window.addEventListener('resize', function () { self.draw(); });
  }

  Explorer.prototype.momentT = function (m) {
    return this.byRecord ? this.T[m.point] : m.t;
  };
  // "the peak of step 2 (train_step#2)": the step's name is trace text, shown as text
  Explorer.prototype.momentName = function (m) {
    return m.label + (m.step_name ? ' (' + m.step_name + ')' : '');
  };
  Explorer.prototype.fmtT = function (t) { return this.byRecord ? 'record ' + Math.round(t) : fmtTime(t, this.d); };
  Explorer.prototype.val = function (i, c) { return this.d.points[i * this.stride + STRIDE0 + c]; };
  Explorer.prototype.field = function (i, f) { return this.d.points[i * this.stride + f]; };
  Explorer.prototype.str = function (k) { return k >= 0 ? this.d.strs[k] : null; };
  Explorer.prototype.shownTotal = function (i) {
    var s = 0;
    for (var c = 0; c < this.K; c++) if (this.on[c]) s += this.val(i, c);
    return s;
  };

  Explorer.prototype.build = function (where) {
    var self = this, d = this.d;
    var box = el('section', { class: 'cgx', 'aria-label': 'Explore ' + d.device });
    this.box = box;
    // not a heading: the page's contents list its own headings only
    box.appendChild(el('p', { class: 'cgx-title' }, 'Explore live memory' + (d.device ? ' on ' + d.device : '')));
    var steps = d.steps_pinned ? ', and the peak of ' + (d.steps_pinned === d.steps.length ? 'each step' :
      'each of the first ' + fmtCount(d.steps_pinned) + ' of ' + fmtCount(d.steps.length) + ' steps') : '';
    var worked = d.moments.filter(function (m) { return m.step === undefined; })
      .map(function (m) { return 'the ' + m.label; }).join(', ') + steps;
    var pinnable = d.allocs ? 'Click any moment to pin what was live then; cgmem worked out ' + worked + ', marked \u25bc.'
      : (d.pairing_known ? 'This trace has too many allocations (' + fmtCount(d.allocations) + ') to embed them'
        : 'The frees of this trace cannot be matched to their allocations') + ': only the ' +
        'moments cgmem worked out are pinnable, marked \u25bc (' + worked + '); a click pins the nearest.';
    var reduced = d.reduced ? ' The series is reduced to the first, highest, lowest and last record of each ' +
      'time bucket of ' + fmtCount(d.records) + ' records; the peak is exact.' : '';
    box.appendChild(el('p', { class: 'cgx-help' },
      'Wheel to zoom, drag to pan, shift-drag to zoom to a range, double-click to reset. ' + pinnable + reduced));
    var bar = el('div', { class: 'cgx-bar' });
    d.categories.forEach(function (cat, c) {
      var b = el('button', { type: 'button', 'aria-pressed': 'true', class: 'cgx-cat', 'data-category': cat.name });
      var sw = el('span', { class: 'sw' });
      sw.style.background = cat.color;
      b.appendChild(sw);
      b.appendChild(document.createTextNode(cat.name));
      b.addEventListener('click', function () {
        self.on[c] = !self.on[c];
        b.setAttribute('aria-pressed', self.on[c] ? 'true' : 'false');
        self.draw();
      });
      bar.appendChild(b);
    });
    var zin = el('button', { type: 'button', class: 'cgx-zin' }, 'zoom in');
    var zout = el('button', { type: 'button', class: 'cgx-zout' }, 'zoom out');
    var reset = el('button', { type: 'button', class: 'cgx-reset' }, 'reset');
    var peak = el('button', { type: 'button', class: 'cgx-peak' }, 'pin the peak');
    zin.addEventListener('click', function () { self.zoom(0.5, (self.x0 + self.x1) / 2); });
    zout.addEventListener('click', function () { self.zoom(2, (self.x0 + self.x1) / 2); });
    reset.addEventListener('click', function () { self.reset(); });
    peak.addEventListener('click', function () { self.pinPoint(d.peak.point); });
    // every worked-out moment, listed: the pinnable ones when the allocations are not embedded
    var pick = el('select', { class: 'cgx-moments', 'aria-label': 'pin a moment cgmem worked out' });
    pick.appendChild(el('option', { value: '' }, 'pin a moment\u2026'));
    d.moments.forEach(function (m, j) { pick.appendChild(el('option', { value: String(j) }, self.momentName(m))); });
    pick.addEventListener('change', function () {
      if (pick.value !== '') self.pinMoment(d.moments[Number(pick.value)], d.moments[Number(pick.value)].point);
      pick.value = '';
    });
    [zin, zout, reset, peak, pick].forEach(function (b) { bar.appendChild(b); });
    box.appendChild(bar);
    mount(this, box, where, 'live memory by category over time');
  };

  // Plot geometry for the current width.
  Explorer.prototype.geometry = function () {
    var W = Math.max(320, this.plotBox.clientWidth || 800);
    var lanes = (this.d.phases.length ? 16 : 0) + (this.d.steps.length ? 16 : 0);
    var g = { W: W, H: 300 + lanes, left: 78, right: 12, top: 6 + lanes, bottom: 26, lanes: lanes };
    g.x0 = g.left; g.x1 = W - g.right; g.y0 = g.top; g.y1 = g.H - g.bottom;
    return g;
  };
  Explorer.prototype.xOf = function (t) { var g = this.g; return g.x0 + (g.x1 - g.x0) * (t - this.x0) / (this.x1 - this.x0); };
  Explorer.prototype.tOf = function (x) { var g = this.g; return this.x0 + (x - g.x0) * (this.x1 - this.x0) / (g.x1 - g.x0); };

  // The points drawn: every one in view when they are few, else per pixel
  // column the one with the highest total shown (so a spike keeps its
  // height and the peak is drawn at its value).
  Explorer.prototype.samples = function () {
    var self = this, T = this.T, n = this.n, g = this.g;
    var a = Math.max(0, lastAtOrBefore(n, function (i) { return T[i]; }, this.x0));
    var b = lastAtOrBefore(n, function (i) { return T[i]; }, this.x1);
    var out = [];
    if (b - a + 1 <= 2 * (g.x1 - g.x0)) {
      for (var i = a; i <= b; i++) out.push([Math.max(g.x0, this.xOf(T[i])), i]);
      return out;
    }
    var col = -1, best = -1, bestV = -1;
    for (var j = a; j <= b; j++) {
      var x = Math.max(g.x0, Math.floor(this.xOf(T[j])));
      if (x !== col) {
        if (best >= 0) out.push([col, best]);
        col = x; best = j; bestV = self.shownTotal(j);
        continue;
      }
      var v = self.shownTotal(j);
      if (v > bestV) { best = j; bestV = v; }
    }
    if (best >= 0) out.push([col, best]);
    return out;
  };

  Explorer.prototype.draw = function () {
    var self = this, d = this.d, svg = this.svg;
    var g = this.g = this.geometry();
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute('viewBox', '0 0 ' + g.W + ' ' + g.H);
    svg.setAttribute('height', g.H);
    svg.setAttribute('data-x0', this.x0);
    svg.setAttribute('data-x1', this.x1);
    var S = this.samples();
    this.drawn = S;
    var ymax = 0;
    S.forEach(function (s) { ymax = Math.max(ymax, self.shownTotal(s[1])); });
    var bt = byteTicks(ymax, 5);
    this.ytop = bt.top;
    var yOf = function (v) { return g.y1 - (g.y1 - g.y0) * v / bt.top; };
    axes(this, bt, yOf);
    // stacked areas, painted from the top category down (as the chart)
    var upto = S.map(function (s) { return self.shownTotal(s[1]); });
    for (var c = this.K - 1; c >= 0; c--) {
      if (!this.on[c]) continue;
      var path = 'M' + g.x0 + ' ' + g.y1, pen = g.y1;
      for (var k = 0; k < S.length; k++) {
        var yy = yOf(upto[k]);
        if (yy !== pen) { path += 'L' + S[k][0].toFixed(1) + ' ' + pen.toFixed(1) + 'L' + S[k][0].toFixed(1) + ' ' + yy.toFixed(1); pen = yy; }
        upto[k] -= this.val(S[k][1], c);
      }
      path += 'L' + g.x1 + ' ' + pen.toFixed(1) + 'L' + g.x1 + ' ' + g.y1 + 'Z';
      svg.appendChild(sv('path', { d: path, fill: d.categories[c].color, class: 'cgx-area' }));
    }
    this.drawLanes();
    // markers: OOMs, the pinnable moments, the pin
    for (var o = 0; o < d.ooms.length && !this.byRecord; o += 2) {
      if (d.ooms[o] < this.x0 || d.ooms[o] > this.x1) continue;
      var ox = Math.floor(this.xOf(d.ooms[o])) + 0.5;
      svg.appendChild(sv('line', { x1: ox, x2: ox, y1: g.y0, y2: g.y1, stroke: '#d55e00', 'stroke-dasharray': '4 3' }));
    }
    d.moments.forEach(function (m) {
      var mt = self.momentT(m);
      if (mt < self.x0 || mt > self.x1) return;
      var mx = self.xOf(mt);
      var tri = sv('path', { d: 'M' + (mx - 5) + ' ' + g.y0 + 'L' + (mx + 5) + ' ' + g.y0 + 'L' + mx + ' ' + (g.y0 + 7) + 'Z',
        fill: INK, class: 'cgx-moment', 'data-label': m.label });
      tri.appendChild(sv('title', {}, self.momentName(m) + ' ' + self.fmtT(mt)));
      svg.appendChild(tri);
    });
    if (this.pinned !== null) {
      var px = Math.floor(this.xOf(this.T[this.pinned])) + 0.5;
      if (px >= g.x0 && px <= g.x1)
        svg.appendChild(sv('line', { x1: px, x2: px, y1: g.y0, y2: g.y1, stroke: INK, 'stroke-width': 1.5, class: 'cgx-pinline' }));
    }
    this.cross = sv('line', { x1: -10, x2: -10, y1: g.y0, y2: g.y1, stroke: INK, 'stroke-opacity': 0.5, 'pointer-events': 'none' });
    svg.appendChild(this.cross);
    this.sel = sv('rect', { x: -10, y: g.y0, width: 0, height: g.y1 - g.y0, fill: '#0b5cad', 'fill-opacity': 0.12 });
    svg.appendChild(this.sel);
  };

  Explorer.prototype.drawLanes = function () {
    var self = this, d = this.d, g = this.g, svg = this.svg, y = 4;
    function lane(label, items, color, name) {
      svg.appendChild(sv('rect', { x: g.x0, y: y, width: g.x1 - g.x0, height: 12, fill: LANE[0] }));
      svg.appendChild(sv('text', { x: g.x0 - 6, y: y + 10, 'text-anchor': 'end', 'font-size': 10, fill: SECONDARY }, label));
      var lastX = -1;
      items.forEach(function (it) {
        if (it[1] < self.x0 || it[0] > self.x1) return;
        var a = Math.max(g.x0, self.xOf(it[0])), b = Math.min(g.x1, self.xOf(it[1]));
        if (b - a < 0.5 && a - lastX < 1) return; // thousands in one pixel: one mark
        lastX = a;
        var r = sv('rect', { x: a, y: y, width: Math.max(0.5, b - a), height: 12, fill: color(it), class: 'cgx-lane-' + name });
        r.appendChild(sv('title', {}, name === 'step' ? it[2] : d.phase_names[it[2]]));
        svg.appendChild(r);
        if (b - a > 40 && name === 'step') {
          // cut to what fits (about 6 px a character at 10 px)
          var fit = Math.floor((b - a - 6) / 6), label = it[2].length > fit ? it[2].slice(0, Math.max(1, fit - 1)) + '\u2026' : it[2];
          var t = sv('text', { x: a + 3, y: y + 10, 'font-size': 10, fill: INK }, label);
          svg.appendChild(t);
        }
      });
      y += 16;
    }
    if (d.phases.length) {
      var ph = [];
      for (var i = 0; i < d.phases.length; i += 3) ph.push([d.phases[i], d.phases[i + 1], d.phases[i + 2]]);
      lane('phase', ph, function (it) { return LANE[it[2]] || LANE[0]; }, 'phase');
    }
    if (d.steps.length) {
      var k = 0;
      lane('step', d.steps, function () { return (k++ % 2) ? '#d9d9d9' : '#bdbdbd'; }, 'step');
    }
  };

  Explorer.prototype.zoom = function (f, at) {
    var w = (this.x1 - this.x0) * f, full = this.t1 - this.t0;
    var minW = Math.max(1, full * 1e-7);
    if (w < minW) w = minW;
    if (w >= full) { this.reset(); return; }
    var r = (at - this.x0) / (this.x1 - this.x0);
    this.x0 = at - r * w; this.x1 = this.x0 + w;
    this.clamp();
    this.draw();
  };
  Explorer.prototype.clamp = function () {
    var w = this.x1 - this.x0;
    if (this.x0 < this.t0) { this.x0 = this.t0; this.x1 = this.t0 + w; }
    if (this.x1 > this.t1) { this.x1 = this.t1; this.x0 = this.t1 - w; }
  };
  Explorer.prototype.reset = function () { this.x0 = this.t0; this.x1 = this.t1; this.draw(); };

  // The point a pixel x stands for: the highest total shown among the
  // points inside its column (as drawn), else the last point before it.
  Explorer.prototype.pointAt = function (x) {
    var T = this.T, n = this.n;
    var lo = this.tOf(Math.floor(x)), hi = this.tOf(Math.floor(x) + 1);
    var b = lastAtOrBefore(n, function (i) { return T[i]; }, hi - 1e-9 * (hi - lo));
    if (b < 0) return 0;
    var best = b, bestV = this.shownTotal(b);
    for (var i = b; i >= 0 && T[i] >= lo; i--) {
      var v = this.shownTotal(i);
      if (v >= bestV) { best = i; bestV = v; }
    }
    return best;
  };
  Explorer.prototype.stepAt = function (t) {
    var st = this.d.steps, k = lastAtOrBefore(st.length, function (i) { return st[i][0]; }, t);
    return k >= 0 && st[k][1] >= t ? st[k][2] : null;
  };
  Explorer.prototype.phaseAt = function (t) {
    var p = this.d.phases, name = null;
    for (var i = 0; i < p.length; i += 3) if (p[i] <= t && t <= p[i + 1]) name = this.d.phase_names[p[i + 2]];
    return name;
  };

  Explorer.prototype.hover = function (x, y) {
    var g = this.g, d = this.d, self = this;
    if (x < g.x0 || x > g.x1) { this.leave(); return; }
    var i = this.pointAt(x), t = this.T[i];
    this.cross.setAttribute('x1', Math.floor(x) + 0.5);
    this.cross.setAttribute('x2', Math.floor(x) + 0.5);
    var tip = this.tip;
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    var total = this.tot[i];
    tip.setAttribute('data-bytes', String(total));
    tip.setAttribute('data-point', String(i));
    var head = el('div');
    head.appendChild(el('b', { class: 'cgx-tip-bytes' }, fmtBytes(total)));
    head.appendChild(document.createTextNode(' live at ' + this.fmtT(t) + (i === d.peak.point ? ' (the peak)' : '')));
    tip.appendChild(head);
    for (var c = this.K - 1; c >= 0; c--) {
      var v = this.val(i, c);
      if (!v) continue;
      var row = el('div');
      var sw = el('span', { class: 'sw' });
      sw.style.background = d.categories[c].color;
      row.appendChild(sw);
      row.appendChild(document.createTextNode(d.categories[c].name + ': ' + fmtBytes(v)));
      tip.appendChild(row);
    }
    var step = this.stepAt(t), phase = this.phaseAt(t);
    if (step || phase) tip.appendChild(el('div', {}, (step ? 'step ' + step : '') + (step && phase ? ', ' : '') + (phase ? phase + ' phase' : '')));
    if (this.field(i, 1) >= 0) {
      var op = this.str(this.field(i, 4)), path = this.str(this.field(i, 5));
      tip.appendChild(el('div', { class: 'cgx-tip-rec' }, 'nearest record: ' + (this.field(i, 2) ? 'free of ' : 'allocation of ') +
        fmtBytes(this.field(i, 3)) + (op ? ' by ' + op : '') + (path ? ' in ' + path : '')));
    }
    tip.style.display = 'block';
    var bw = this.plotBox.clientWidth, tw = tip.offsetWidth;
    var left = x + 14 + tw > bw ? Math.max(0, x - 14 - tw) : x + 14;
    tip.style.left = left + 'px';
    tip.style.top = Math.max(0, Math.min(y, g.y1 - tip.offsetHeight)) + 'px';
    void self;
  };
  Explorer.prototype.leave = function () {
    this.tip.style.display = 'none';
    if (this.cross) { this.cross.setAttribute('x1', -10); this.cross.setAttribute('x2', -10); }
  };

  Explorer.prototype.events = function () {
    var self = this, svg = this.svg, drag = null;
    function pos(e) {
      var r = svg.getBoundingClientRect(), k = self.g.W / r.width;
      return { x: (e.clientX - r.left) * k, y: (e.clientY - r.top) * k, k: k };
    }
    svg.addEventListener('wheel', function (e) {
      e.preventDefault();
      var p = pos(e);
      self.zoom(e.deltaY < 0 ? 0.8 : 1.25, self.tOf(Math.min(self.g.x1, Math.max(self.g.x0, p.x))));
    }, { passive: false });
    svg.addEventListener('pointerdown', function (e) {
      var p = pos(e);
      drag = { x: p.x, x0: self.x0, x1: self.x1, moved: false, zoom: e.shiftKey };
      svg.setPointerCapture(e.pointerId);
    });
    svg.addEventListener('pointermove', function (e) {
      var p = pos(e);
      if (drag) {
        if (Math.abs(p.x - drag.x) > 3) drag.moved = true;
        if (!drag.moved) return;
        if (drag.zoom) {
          var a = Math.max(self.g.x0, Math.min(drag.x, p.x)), b = Math.min(self.g.x1, Math.max(drag.x, p.x));
          self.sel.setAttribute('x', a);
          self.sel.setAttribute('width', b - a);
          return;
        }
        var dt = (p.x - drag.x) * (drag.x1 - drag.x0) / (self.g.x1 - self.g.x0);
        self.x0 = drag.x0 - dt; self.x1 = drag.x1 - dt;
        self.clamp();
        self.draw();
        return;
      }
      self.hover(p.x, p.y / p.k);
    });
    svg.addEventListener('pointerup', function (e) {
      var p = pos(e), dr = drag;
      drag = null;
      if (!dr) return;
      if (dr.moved && dr.zoom) {
        var a = self.tOf(Math.min(dr.x, p.x)), b = self.tOf(Math.max(dr.x, p.x));
        a = Math.max(self.t0, a); b = Math.min(self.t1, b);
        if (b > a) { self.x0 = a; self.x1 = b; }
        self.draw();
      } else if (!dr.moved && p.x >= self.g.x0 && p.x <= self.g.x1) {
        self.click(p.x);
      }
    });
    svg.addEventListener('pointerleave', function () { if (!drag) self.leave(); });
    svg.addEventListener('dblclick', function () { self.reset(); });
  };

  // --- pinning a moment ---
  Explorer.prototype.click = function (x) {
    var d = this.d, i = this.pointAt(x);
    if (d.allocs || i === d.peak.point) { this.pinPoint(i); return; }
    // only the moments cgmem worked out: the nearest one
    var best = null, bx = Infinity, self = this;
    d.moments.forEach(function (m) {
      var dx = Math.abs(self.xOf(self.momentT(m)) - x);
      if (dx < bx) { bx = dx; best = m; }
    });
    if (best) this.pinMoment(best, best.point);
  };

  // The moment after point i of data d worked out from the embedded
  // allocations: live are those allocated at or before its record and not
  // yet ended, as the live-set pass counts them. val(i, c): the series'
  // bytes of category c there.
  function liveAt(d, rec, t, total, val, K) {
    var A = d.allocs, live = [], byPath = {};
    for (var a = 0; a < A.length; a += 9) {
      if (A[a] > rec || (A[a + 1] >= 0 && A[a + 1] <= rec)) continue;
      live.push(a);
      byPath[A[a + 7]] = (byPath[A[a + 7]] || 0) + A[a + 4];
    }
    live.sort(function (x, y) { return A[y + 4] - A[x + 4] || A[x] - A[y]; });
    var top = live.slice(0, d.top_n).map(function (a) {
      return { bytes: A[a + 4], category: d.category_names[A[a + 5]], op: A[a] >= 0 ? (d.strs[A[a + 6]] || null) : null,
        span_path: A[a + 7] >= 0 ? d.strs[A[a + 7]] : null, allocated_ns: A[a + 2] >= 0 ? A[a + 2] : null,
        freed_ns: A[a + 3] >= 0 ? A[a + 3] : null, tensor: A[a + 8] >= 0 ? d.strs[A[a + 8]] : null };
    });
    var paths = [];
    for (var p in byPath) paths.push(Number(p), byPath[p]);
    // the categories of the series hold the baseline too: take them from it
    var catBytes = d.category_names.map(function () { return 0; });
    for (var c = 0; c < K; c++) catBytes[d.categories[c].id] = val(c);
    return { label: 'moment', t: t, bytes: total, count: live.length, by_category: catBytes,
      listed: true, top: top, by_path: paths, computed: true };
  }

  Explorer.prototype.pinPoint = function (i) {
    var d = this.d, self = this;
    // a moment cgmem worked out at this point (the peak first): its list as written
    for (var j = 0; j < d.moments.length; j++)
      if (d.moments[j].point === i) { this.pinMoment(d.moments[j], i); return; }
    if (!d.allocs) { this.pinMoment(d.moments[0], d.peak.point); return; }
    this.pinMoment(liveAt(d, this.field(i, 1), this.T[i], this.tot[i], function (c) { return self.val(i, c); }, this.K), i);
  };

  Explorer.prototype.pinMoment = function (m, i) {
    var pin = this.pin;
    this.pinned = i;
    this.draw();
    while (pin.firstChild) pin.removeChild(pin.firstChild);
    pin.setAttribute('data-label', m.label);
    pin.setAttribute('data-bytes', String(m.bytes));
    pin.appendChild(el('h4', { style: 'margin:4px 0' }, 'Pinned: ' + (m.label === 'moment' ? '' : 'the ' + this.momentName(m) + ', ') +
      fmtBytes(m.bytes) + ' live at ' + this.fmtT(this.T[i]) + ' in ' + fmtCount(m.count) + ' allocations'));
    listMoment(pin, this.d, m);
  };

  // A pinned moment's tables: bytes by category, the largest live
  // allocations, bytes by span path. Times shown less t0 (diff.html: from
  // the run's start).
  function listMoment(pin, d, m, t0) {
    t0 = t0 || 0;
    var cats = [];
    m.by_category.forEach(function (b, c) { if (b) cats.push([d.category_names[c], b]); });
    cats.sort(function (a, b) { return b[1] - a[1]; });
    var t1 = table(['category', 'bytes'], cats.map(function (r) { return [r[0], fmtBytes(r[1])]; }), 'cgx-pin-cats');
    pin.appendChild(t1);
    if (!m.listed) {
      pin.appendChild(el('p', {}, 'The frees of this trace cannot be matched to their allocations: no list.'));
      return;
    }
    pin.appendChild(el('p', { class: 'cgx-help' }, 'The ' + Math.min(m.top.length, d.top_n) + ' largest live allocations' +
      (m.computed ? ' (from the embedded records)' : ' (as summary.json lists them)') + ':'));
    var rows = m.top.map(function (a) {
      return [fmtBytes(a.bytes), a.category, a.op || '', a.span_path || '', a.allocated_ns === null ? 'before the trace' : fmtTime(a.allocated_ns - t0, d),
        a.freed_ns === null ? 'never' : fmtTime(a.freed_ns - t0, d)];
    });
    var t2 = table(['bytes', 'category', 'op', 'span path', 'allocated at', 'freed at'], rows, 'cgx-pin-top');
    m.top.forEach(function (a, r) {
      var tr = t2.tBodies[0].rows[r];
      tr.setAttribute('data-bytes', String(a.bytes));
      tr.setAttribute('data-allocated', a.allocated_ns === null ? '' : String(a.allocated_ns));
      tr.setAttribute('data-freed', a.freed_ns === null ? '' : String(a.freed_ns));
    });
    pin.appendChild(t2);
    var paths = [];
    for (var k = 0; k < m.by_path.length; k += 2) paths.push([m.by_path[k], m.by_path[k + 1]]);
    paths.sort(function (a, b) { return b[1] - a[1]; });
    pin.appendChild(el('p', { class: 'cgx-help' }, 'By span path' + (paths.length > 10 ? ' (the 10 largest of ' + paths.length + ')' : '') + ':'));
    pin.appendChild(table(['span path', 'bytes'], paths.slice(0, 10).map(function (p) {
      return [p[0] >= 0 ? d.strs[p[0]] : '(no span)', fmtBytes(p[1])];
    }), 'cgx-pin-paths'));
  }

  function table(head, rows, cls) {
    var wrap = el('div', { class: 'tw' }), t = el('table', { class: cls });
    var th = el('thead'), tr = el('tr');
    head.forEach(function (h) { tr.appendChild(el('th', {}, h)); });
    th.appendChild(tr);
    t.appendChild(th);
    var tb = el('tbody');
    rows.forEach(function (r) {
      var row = el('tr');
      r.forEach(function (c, k) {
        var h = head[k];
        row.appendChild(el('td', h === 'bytes' ? { class: 'r' } : h === 'span path' ? { class: 'p cgx-path' } : {}, c));
      });
      tb.appendChild(row);
    });
    t.appendChild(tb);
    wrap.appendChild(t);
    wrap.tBodies = t.tBodies;
    return wrap;
  }
