// Continues render/js/explore.js inside its closure (render/js/embed.cmake
// joins the two): diff.html's explorer, a snapshot's segment view, and the
// start-up that finds each device's data element as the page is parsed.

  // --- diff.html: both runs' live bytes on one axis, from each run's start ---
  var RUN_COLOR = ['#707070', '#D55E00']; // chart_diff.h: base grey, new vermilion
  // One run of a diff: its series as times from the run's start and totals.
  function Run(r) {
    var d = r.data, K = d.categories.length, st = STRIDE0 + K, P = d.points, n = P.length / st;
    this.d = d; this.side = r.side; this.name = r.name; this.K = K; this.stride = st; this.n = n;
    this.T = new Float64Array(n); this.tot = new Float64Array(n);
    for (var i = 0; i < n; i++) {
      this.T[i] = P[i * st] - r.start_ns;
      var s = 0;
      for (var c = 0; c < K; c++) s += P[i * st + STRIDE0 + c];
      this.tot[i] = s;
    }
    this.start = r.start_ns;
    this.on = true;
  }
  Run.prototype.val = function (i, c) { return this.d.points[i * this.stride + STRIDE0 + c]; };
  // The point standing for times lo..hi (a pixel column): the highest in
  // it, else the last before it; -1 before the run's first record.
  Run.prototype.pointIn = function (lo, hi) {
    var T = this.T, b = lastAtOrBefore(this.n, function (i) { return T[i]; }, hi - 1e-9 * (hi - lo));
    if (b < 0) return -1;
    var best = b;
    for (var i = b; i >= 0 && T[i] >= lo; i--) if (this.tot[i] >= this.tot[best]) best = i;
    return best;
  };
  // What to pin of this run at point i: the moment cgmem worked out there,
  // else the live set from the embedded allocations, else the nearest
  // worked-out moment (with its own time).
  Run.prototype.momentAt = function (i) {
    var d = this.d, self = this;
    if (i < 0) return null;
    for (var j = 0; j < d.moments.length; j++) if (d.moments[j].point === i) return d.moments[j];
    if (d.allocs)
      return liveAt(d, d.points[i * this.stride + 1], this.T[i], this.tot[i], function (c) { return self.val(i, c); }, this.K);
    var best = d.moments[0];
    d.moments.forEach(function (m) {
      if (Math.abs(self.T[m.point] - self.T[i]) < Math.abs(self.T[best.point] - self.T[i])) best = m;
    });
    return best;
  };

  function DiffExplorer(data, where) {
    var self = this;
    this.d = data;
    this.runs = data.runs.map(function (r) { return new Run(r); });
    var d0 = this.runs[0].d;
    this.d.time_is_index = d0.time_is_index;
    this.t0 = 0;
    this.t1 = Math.max(1, this.runs[0].T[this.runs[0].n - 1], this.runs[1].T[this.runs[1].n - 1]);
    this.x0 = this.t0; this.x1 = this.t1;
    this.pinned = null;
    this.build(where);
    this.draw();
    window.addEventListener('resize', function () { self.draw(); });
  }
  DiffExplorer.prototype.fmtT = function (t) { return fmtTime(t, this.d); };
  ['xOf', 'tOf', 'zoom', 'clamp', 'reset', 'events'].forEach(function (f) { DiffExplorer.prototype[f] = Explorer.prototype[f]; });

  DiffExplorer.prototype.build = function (where) {
    var self = this, d = this.d;
    var box = el('section', { class: 'cgx cgx-diff', 'aria-label': 'Explore ' + d.device });
    this.box = box;
    box.appendChild(el('p', { class: 'cgx-title' }, 'Explore both runs' + (d.device ? ' on ' + d.device : '')));
    var pinnable = this.runs[0].d.allocs && this.runs[1].d.allocs ? 'each run at that moment' :
      this.runs.map(function (r) {
        return 'the ' + r.side + ' run ' + (r.d.allocs ? 'at that moment' : 'at the nearest moment cgmem worked out (' +
          r.d.moments.slice(0, 3).map(function (m) { return 'the ' + m.label; }).join(', ') +
          (r.d.moments.length > 3 ? ', \u2026' : '') + (r.d.pairing_known ? '; it has too many allocations to embed them)' :
          '; its frees cannot be matched to their allocations)'));
      }).join(' and ');
    box.appendChild(el('p', { class: 'cgx-help' }, 'Live bytes of each run, times from each run\u2019s own start (its first ' +
      'record): the runs are not aligned otherwise. Wheel to zoom, drag to pan, shift-drag to zoom to a range, ' +
      'double-click to reset; hover for both runs\u2019 live bytes and the difference; click to pin what was live in ' +
      pinnable + '; \u25bc marks each run\u2019s peak.'));
    var bar = el('div', { class: 'cgx-bar' });
    this.runs.forEach(function (r, k) {
      var b = el('button', { type: 'button', 'aria-pressed': 'true', class: 'cgx-run', 'data-side': r.side });
      var sw = el('span', { class: 'sw' });
      sw.style.background = RUN_COLOR[k];
      b.appendChild(sw);
      b.appendChild(document.createTextNode(r.side + ': ' + r.name));
      b.addEventListener('click', function () {
        r.on = !r.on;
        b.setAttribute('aria-pressed', r.on ? 'true' : 'false');
        self.draw();
      });
      bar.appendChild(b);
    });
    [['zoom in', 'cgx-zin', function () { self.zoom(0.5, (self.x0 + self.x1) / 2); }],
      ['zoom out', 'cgx-zout', function () { self.zoom(2, (self.x0 + self.x1) / 2); }],
      ['reset', 'cgx-reset', function () { self.reset(); }]].concat(this.runs.map(function (r) {
      return ['pin the ' + r.side + ' peak', 'cgx-peak-' + r.side, function () { self.pinAt(r.T[r.d.peak.point], r); }];
    })).forEach(function (x) {
      var b = el('button', { type: 'button', class: x[1] }, x[0]);
      b.addEventListener('click', x[2]);
      bar.appendChild(b);
    });
    box.appendChild(bar);
    mount(this, box, where, 'live memory of both runs over time');
  };

  DiffExplorer.prototype.draw = function () {
    var self = this, svg = this.svg;
    var W = Math.max(320, this.plotBox.clientWidth || 800);
    var g = this.g = { W: W, H: 300, x0: 78, x1: W - 12, y0: 8, y1: 274 };
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + g.H);
    svg.setAttribute('height', g.H);
    svg.setAttribute('data-x0', this.x0);
    svg.setAttribute('data-x1', this.x1);
    // per run and pixel column: the first, highest, lowest and last point
    var cols = this.runs.map(function (r) {
      var T = r.T, out = [];
      if (!r.on) return out;
      var a = Math.max(0, lastAtOrBefore(r.n, function (i) { return T[i]; }, self.x0));
      var b = lastAtOrBefore(r.n, function (i) { return T[i]; }, self.x1), c = null;
      for (var i = a; i <= b; i++) {
        var x = Math.max(g.x0, Math.floor(self.xOf(T[i]))), v = r.tot[i];
        if (!c || c.x !== x) { c = { x: x, first: v, hi: v, lo: v, last: v }; out.push(c); continue; }
        c.hi = Math.max(c.hi, v); c.lo = Math.min(c.lo, v); c.last = v;
      }
      return out;
    });
    var ymax = 0;
    cols.forEach(function (cs) { cs.forEach(function (c) { ymax = Math.max(ymax, c.hi); }); });
    var bt = byteTicks(ymax, 5);
    var yOf = function (v) { return (g.y1 - (g.y1 - g.y0) * v / bt.top).toFixed(1); };
    axes(this, bt, yOf);
    cols.forEach(function (cs, k) {
      if (!cs.length) return;
      var r = self.runs[k], end = Math.min(g.x1, self.xOf(r.T[r.n - 1]));
      var path = 'M' + cs[0].x + ' ' + yOf(cs[0].first);
      cs.forEach(function (c, j) {
        if (j) path += 'L' + c.x + ' ' + yOf(cs[j - 1].last) + 'L' + c.x + ' ' + yOf(c.first);
        if (c.hi !== c.lo) path += 'L' + c.x + ' ' + yOf(c.hi) + 'L' + c.x + ' ' + yOf(c.lo);
        path += 'L' + c.x + ' ' + yOf(c.last);
      });
      path += 'L' + Math.max(end, cs[cs.length - 1].x) + ' ' + yOf(cs[cs.length - 1].last);
      svg.appendChild(sv('path', { d: path, fill: 'none', stroke: RUN_COLOR[k], 'stroke-width': 1.5, class: 'cgx-run-line',
        'data-side': r.side }));
      var pk = r.T[r.d.peak.point];
      if (pk >= self.x0 && pk <= self.x1) {
        var mx = self.xOf(pk);
        var tri = sv('path', { d: 'M' + (mx - 5) + ' ' + g.y0 + 'L' + (mx + 5) + ' ' + g.y0 + 'L' + mx + ' ' + (g.y0 + 7) + 'Z',
          fill: RUN_COLOR[k], class: 'cgx-moment', 'data-label': r.side + ' peak' });
        tri.appendChild(sv('title', {}, 'the ' + r.side + ' run\u2019s peak, ' + fmtBytes(r.tot[r.d.peak.point]) + ' at ' + self.fmtT(pk)));
        svg.appendChild(tri);
      }
    });
    if (this.pinned !== null && this.pinned >= this.x0 && this.pinned <= this.x1) {
      var px = Math.floor(this.xOf(this.pinned)) + 0.5;
      svg.appendChild(sv('line', { x1: px, x2: px, y1: g.y0, y2: g.y1, stroke: INK, 'stroke-width': 1.5, class: 'cgx-pinline' }));
    }
    this.cross = sv('line', { x1: -10, x2: -10, y1: g.y0, y2: g.y1, stroke: INK, 'stroke-opacity': 0.5, 'pointer-events': 'none' });
    svg.appendChild(this.cross);
    this.sel = sv('rect', { x: -10, y: g.y0, width: 0, height: g.y1 - g.y0, fill: '#0b5cad', 'fill-opacity': 0.12 });
    svg.appendChild(this.sel);
  };

  // Each run's point at pixel x (-1 when hidden or not yet started).
  DiffExplorer.prototype.pointsAt = function (x) {
    var lo = this.tOf(Math.floor(x)), hi = this.tOf(Math.floor(x) + 1);
    return this.runs.map(function (r) { return r.on ? r.pointIn(lo, hi) : -1; });
  };

  DiffExplorer.prototype.hover = function (x, y) {
    var g = this.g, self = this, tip = this.tip;
    if (x < g.x0 || x > g.x1) { this.leave(); return; }
    var at = this.pointsAt(x), t = this.tOf(Math.floor(x) + 0.5);
    this.cross.setAttribute('x1', Math.floor(x) + 0.5);
    this.cross.setAttribute('x2', Math.floor(x) + 0.5);
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    tip.appendChild(el('div', {}, 'at ' + this.fmtT(t) + ' from each run\u2019s start'));
    var b = [null, null];
    this.runs.forEach(function (r, k) {
      var i = at[k];
      tip.setAttribute('data-bytes-' + r.side, i < 0 ? '' : String(r.tot[i]));
      tip.setAttribute('data-point-' + r.side, String(i));
      if (!r.on) return;
      var row = el('div'), sw = el('span', { class: 'sw' });
      sw.style.background = RUN_COLOR[k];
      row.appendChild(sw);
      if (i < 0) { row.appendChild(document.createTextNode(r.side + ': not started')); tip.appendChild(row); return; }
      b[k] = r.tot[i];
      row.appendChild(document.createTextNode(r.side + ': '));
      row.appendChild(el('b', { class: 'cgx-tip-' + r.side }, fmtBytes(r.tot[i])));
      row.appendChild(document.createTextNode(' live' + (i === r.d.peak.point ? ' (its peak)' : '') +
        (t > r.T[r.n - 1] ? ' (the run had ended, at ' + self.fmtT(r.T[r.n - 1]) + ')' : '')));
      tip.appendChild(row);
    });
    if (b[0] !== null && b[1] !== null) {
      var dlt = b[1] - b[0];
      tip.setAttribute('data-diff', String(dlt));
      tip.appendChild(el('div', { class: 'cgx-tip-diff' }, 'new \u2212 base: ' + (dlt > 0 ? '+' : dlt < 0 ? '\u2212' : '') +
        fmtBytes(Math.abs(dlt)) + (b[0] ? ' (' + (dlt >= 0 ? '+' : '\u2212') + (Math.abs(dlt) * 100 / b[0]).toFixed(1) + ' %)' : '')));
    } else {
      tip.removeAttribute('data-diff');
    }
    tip.style.display = 'block';
    var bw = this.plotBox.clientWidth, tw = tip.offsetWidth;
    tip.style.left = (x + 14 + tw > bw ? Math.max(0, x - 14 - tw) : x + 14) + 'px';
    tip.style.top = Math.max(0, Math.min(y, g.y1 - tip.offsetHeight)) + 'px';
  };
  DiffExplorer.prototype.leave = Explorer.prototype.leave;

  DiffExplorer.prototype.click = function (x) {
    var at = this.pointsAt(x);
    this.pinPoints(this.tOf(Math.floor(x) + 0.5), at);
  };
  // Pins time t of run r's axis at its point there (a peak: exactly its point).
  DiffExplorer.prototype.pinAt = function (t, r) {
    this.pinPoints(t, this.runs.map(function (q) {
      if (q === r) return q.d.peak.point;
      return lastAtOrBefore(q.n, function (i) { return q.T[i]; }, t);
    }));
  };
  DiffExplorer.prototype.pinPoints = function (t, at) {
    var self = this, pin = this.pin;
    this.pinned = t;
    this.draw();
    while (pin.firstChild) pin.removeChild(pin.firstChild);
    pin.appendChild(el('h4', { style: 'margin:4px 0' }, 'Pinned: ' + this.fmtT(t) + ' from each run\u2019s start'));
    this.runs.forEach(function (r, k) {
      var m = r.momentAt(at[k]), part = el('div', { class: 'cgx-pin-run', 'data-side': r.side });
      pin.appendChild(part);
      if (!m) { part.appendChild(el('p', {}, 'The ' + r.side + ' run ' + (r.on ? 'had not started.' : 'is hidden.'))); return; }
      part.setAttribute('data-label', m.label);
      part.setAttribute('data-bytes', String(m.bytes));
      var mt = m.computed ? m.t : r.T[m.point];
      var head = el('h4', { style: 'margin:8px 0 4px;color:' + RUN_COLOR[k] }, 'The ' + r.side + ' run' +
        (m.label === 'moment' ? '' : ', its ' + m.label + (m.step_name ? ' (' + m.step_name + ')' : '')) + ': ' + fmtBytes(m.bytes) +
        ' live at ' + self.fmtT(mt) + ' in ' + fmtCount(m.count) + ' allocations');
      part.appendChild(head);
      listMoment(part, r.d, m, r.start);
    });
  };

  // --- a snapshot's segment view: every segment's blocks by state ---
  var STATE_COLOR = ['#0072B2', '#E69F00', '#DDDDDD', '#999999'];
  function Segments(data, where) {
    var self = this;
    this.d = data;
    var box = el('section', { class: 'cgx cgx-segview', 'aria-label': 'Segments of ' + data.device });
    this.box = box;
    box.appendChild(el('p', { class: 'cgx-title' }, 'Explore the segments' + (data.device ? ' on ' + data.device : '')));
    var more = data.segments_embedded < data.segment_count ? ' The ' + fmtCount(data.segments_embedded) + ' first of ' +
      fmtCount(data.segment_count) + ' segments are shown.' : '';
    box.appendChild(el('p', { class: 'cgx-help' }, 'Each bar is a segment, at one scale, its blocks coloured by state; ' +
      'hover a block for its size, requested size, state and frames.' + more));
    var bar = el('div', { class: 'cgx-bar' });
    data.states.forEach(function (st, k) {
      var sp = el('span');
      var sw = el('span', { class: 'sw' });
      sw.style.background = STATE_COLOR[k] || '#999';
      sp.appendChild(sw);
      sp.appendChild(document.createTextNode(st));
      bar.appendChild(sp);
    });
    box.appendChild(bar);
    var plot = el('div', { class: 'cgx-plot' });
    this.svg = sv('svg', { class: 'cgx-svg cgx-segsvg', role: 'img', 'aria-label': 'segment map' });
    this.tip = el('div', { class: 'cgx-tip', role: 'status' });
    plot.appendChild(this.svg);
    plot.appendChild(this.tip);
    box.appendChild(plot);
    this.plotBox = plot;
    where.parentNode.insertBefore(box, where);
    this.draw();
    this.svg.addEventListener('pointermove', function (e) { self.hover(e); });
    this.svg.addEventListener('pointerleave', function () { self.tip.style.display = 'none'; });
    window.addEventListener('resize', function () { self.draw(); });
  }
  Segments.prototype.draw = function () {
    var d = this.d, svg = this.svg, W = Math.max(320, this.plotBox.clientWidth || 800);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var total = 0;
    d.segments.forEach(function (s) { total += s[1]; });
    var rows = Math.max(1, Math.min(40, Math.ceil(Math.sqrt(d.segments.length))));
    var bpp = Math.max(1, total / (W * rows * 0.85)), RH = 14, GAP = 4, x = 0, y = 0;
    d.segments.forEach(function (s, si) {
      var w = Math.min(W, Math.max(3, s[1] / bpp));
      if (x > 0 && x + w > W) { x = 0; y += RH + GAP; }
      var seg = sv('rect', { x: x, y: y, width: w, height: RH, fill: '#fff', stroke: '#888', 'stroke-width': 0.5 });
      svg.appendChild(seg);
      var B = s[4], k = w / s[1];
      for (var b = 0; b < B.length; b += 6) {
        svg.appendChild(sv('rect', { x: x + B[b] * k, y: y + 1, width: Math.max(0.5, B[b + 1] * k), height: RH - 2,
          fill: STATE_COLOR[B[b + 3]] || '#999', class: 'cgx-block', 'data-s': si, 'data-b': b / 6, 'data-size': B[b + 1] }));
      }
      x += w + GAP;
    });
    var H = y + RH + 2;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.setAttribute('height', H);
    this.W = W;
  };
  Segments.prototype.hover = function (e) {
    var t = e.target, d = this.d, tip = this.tip;
    if (!t.classList || !t.classList.contains('cgx-block')) { tip.style.display = 'none'; return; }
    var s = d.segments[Number(t.getAttribute('data-s'))], b = Number(t.getAttribute('data-b')) * 6, B = s[4];
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    tip.setAttribute('data-bytes', String(B[b + 1]));
    tip.setAttribute('data-state', d.states[B[b + 3]] || '');
    var head = el('div');
    head.appendChild(el('b', {}, fmtBytes(B[b + 1])));
    head.appendChild(document.createTextNode(' ' + (d.states[B[b + 3]] || '') + ' block'));
    tip.appendChild(head);
    tip.appendChild(el('div', {}, 'requested ' + fmtBytes(B[b + 2]) + (B[b + 3] === 2 ? ' (stale: the block is free)' : '')));
    tip.appendChild(el('div', {}, 'at 0x' + (s[0] + B[b]).toString(16) + ', offset ' + fmtBytes(B[b]) + ' in a segment of ' +
      fmtBytes(s[1]) + (s[3] ? ' (expandable)' : '')));
    tip.appendChild(el('div', {}, B[b + 4] ? fmtCount(B[b + 4]) + ' frames, the top: ' + (B[b + 5] || '?') : 'no frames recorded'));
    tip.style.display = 'block';
    var r = this.svg.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
    var tw = tip.offsetWidth, left = px + 14 + tw > r.width ? Math.max(0, px - 14 - tw) : px + 14;
    tip.style.left = left + 'px';
    tip.style.top = (py + 14) + 'px';
  };

  // Each device's explorer starts as soon as its data element has been
  // parsed (the parser has gone past it: it has a next sibling), rather
  // than after the whole page, whose inline SVG charts can take seconds to
  // parse; DOMContentLoaded starts the rest.
  var blocks = document.getElementsByClassName('cgx-data'); // live: grows as the page is parsed
  var scriptMs = 0, firstMs = 0, drawnMs = 0, early = 0, observer = null;
  window.cgmemExplorers = [];
  window.cgmemSegmentViews = [];
  window.cgmemDiffExplorers = [];

  function take(block) {
    if (block.cgxStarted) return;
    block.cgxStarted = true;
    if (document.readyState === 'loading') early++;
    var began = performance.now();
    try {
      var data = JSON.parse(block.textContent);
      if (data.segments_view) window.cgmemSegmentViews.push(new Segments(data, block));
      else if (data.diff_view) window.cgmemDiffExplorers.push(new DiffExplorer(data, block));
      else window.cgmemExplorers.push(new Explorer(data, block));
    } catch (e) {
      var p = el('p', { class: 'note' }, 'The explorer could not start: ' + e.message);
      block.parentNode.insertBefore(p, block);
      throw e;
    } finally {
      scriptMs += performance.now() - began;
      // since navigation began: when this one became interactive
      drawnMs = performance.now();
      if (!firstMs) firstMs = drawnMs;
    }
  }

  function parsed() {
    for (var b = 0; b < blocks.length; b++)
      if (!blocks[b].cgxStarted && blocks[b].nextSibling) take(blocks[b]);
  }

  function finish() {
    if (observer) observer.disconnect();
    for (var b = 0; b < blocks.length; b++) take(blocks[b]);
    var root = document.documentElement;
    root.setAttribute('data-cgx-ready', String(window.cgmemExplorers.length + window.cgmemSegmentViews.length + window.cgmemDiffExplorers.length));
    // when the last explorer was drawn, since navigation began
    root.setAttribute('data-cgx-ms', String(Math.round(drawnMs || performance.now())));
    root.setAttribute('data-cgx-first-ms', String(Math.round(firstMs || performance.now())));
    root.setAttribute('data-cgx-script-ms', String(Math.round(scriptMs)));
    // how many started while the rest of the page was still being parsed
    root.setAttribute('data-cgx-early', String(early));
  }

  var style = document.createElement('style');
  style.textContent = CSS;
  (document.head || document.documentElement).appendChild(style);
  if (document.readyState === 'loading') {
    if (window.MutationObserver) {
      observer = new MutationObserver(parsed);
      observer.observe(document.documentElement, { childList: true, subtree: true });
    }
    document.addEventListener('DOMContentLoaded', finish);
  } else {
    finish();
  }
})();
