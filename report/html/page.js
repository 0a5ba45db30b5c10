// The histcheck report viewer: draws one history at a time on a canvas,
// one lane per process, only the part in view, so that tens of thousands of
// operations stay responsive. Everything it shows comes from the JSON blob
// in #histcheck-data.
(function () {
  "use strict";

  var LABEL_W = 120; // lane names column
  var LEFT_PAD = 14; // room before the first call
  var AXIS_H = 30; // time axis
  var LANE_H = 28;
  var BAR_H = 18;
  var RIGHT_PAD = 60; // room after the last event, where unknown outcomes run out
  var MAX_WIDTH = 8e6; // px: browsers cap element sizes
  var FONT = "12px system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif";
  var MONO = "11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace";
  var COLORS = {
    ok: "#3d6fa8", okText: "#ffffff", fail: "#9aa0a6", failText: "#3b434b",
    info: "#d9a21b", infoFill: "rgba(217, 162, 27, 0.22)", core: "#d1342f",
    laneA: "#ffffff", laneB: "#f6f8fa", grid: "#e6eaee", ink: "#1f2328", muted: "#59636e"
  };

  var data = JSON.parse(document.getElementById("histcheck-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var canvas = $("canvas"), ctx = canvas.getContext("2d");
  var scroller = $("scroller"), spacer = $("spacer"), stage = $("stage"), tip = $("tip");

  var S = {
    hi: 0, // history shown
    H: null, // its layout
    scale: 1, // px per unit of the axis
    axis: "time",
    order: -1, // result whose witness numbers the bars, -1 none
    sel: null, // {r, v}: the violation highlighted
    hover: -1,
    drawn: 0
  };

  // --- layout ---------------------------------------------------------

  function layout(h) {
    var ops = h.ops, n = ops.lane.length;
    var lanes = h.lanes.map(function (l) { return { name: l.name, client: l.client, ops: [] }; });
    var end = 0;
    for (var i = 0; i < n; i++) {
      lanes[ops.lane[i]].ops.push(i);
      end = Math.max(end, ops.call[i], ops.ret[i]);
    }
    lanes.forEach(function (l) {
      l.ops.sort(function (a, b) { return ops.call[a] - ops.call[b] || a - b; });
    });
    // Event order: every distinct call and return time gets a slot.
    var times = [];
    for (i = 0; i < n; i++) {
      times.push(ops.call[i]);
      if (ops.ret[i] >= 0) times.push(ops.ret[i]);
    }
    times.sort(function (a, b) { return a - b; });
    var uniq = [];
    for (i = 0; i < times.length; i++) if (i === 0 || times[i] !== times[i - 1]) uniq.push(times[i]);
    var durs = [];
    for (i = 0; i < n; i++) if (ops.ret[i] >= 0) durs.push(ops.ret[i] - ops.call[i]);
    durs.sort(function (a, b) { return a - b; });
    var short = ops.label.map(function (lab, k) {
      var c = lanes[ops.lane[k]].client + ":";
      return lab.indexOf(c) === 0 ? lab.slice(c.length) : lab;
    });
    var busy = 0;
    for (i = 0; i < durs.length; i++) busy += durs[i];
    return {
      h: h, ops: ops, n: n, lanes: lanes, end: end, uniq: uniq, short: short,
      medianDur: durs.length ? durs[Math.floor(durs.length / 2)] : 1,
      // The share of lane time that operations fill: low when they are
      // short bursts far apart, where the event order reads better.
      occupancy: end > 0 && lanes.length ? busy / (end * lanes.length) : 1
    };
  }

  function rank(H, t) {
    var lo = 0, hi = H.uniq.length - 1;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (H.uniq[mid] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // Units along the axis: time offsets, or event slots.
  function unitsEnd(H) { return S.axis === "time" ? H.end : Math.max(H.uniq.length - 1, 1); }
  function uCall(H, i) { return S.axis === "time" ? H.ops.call[i] : rank(H, H.ops.call[i]); }
  function uRet(H, i) {
    var r = H.ops.ret[i];
    if (r < 0) return Infinity;
    return S.axis === "time" ? r : rank(H, r);
  }

  // --- selection ------------------------------------------------------

  function highlighted() {
    var m = new Map();
    if (!S.sel) return m;
    var v = S.H.h.results[S.sel.r].violations[S.sel.v];
    if (v.core) {
      v.core.ops.forEach(function (i) { m.set(i, "core"); });
      v.core.weakened.forEach(function (i) { m.set(i, "weak"); });
    } else {
      v.ops.forEach(function (i) { m.set(i, "core"); });
    }
    return m;
  }

  function steps() {
    var m = new Map();
    if (S.order < 0) return m;
    S.H.h.results[S.order].witness.forEach(function (i, k) { m.set(i, k + 1); });
    return m;
  }

  // --- geometry -------------------------------------------------------

  function viewW() { return scroller.clientWidth; }
  function viewH() { return scroller.clientHeight; }
  function contentW() { return LABEL_W + LEFT_PAD + unitsEnd(S.H) * S.scale + RIGHT_PAD; }
  function contentH() { return AXIS_H + S.H.lanes.length * LANE_H + 8; }
  function fitScale() { return Math.max((viewW() - LABEL_W - LEFT_PAD - RIGHT_PAD) / Math.max(unitsEnd(S.H), 1), 1e-9); }
  function clampScale(s) {
    var maxS = (MAX_WIDTH - LABEL_W - LEFT_PAD - RIGHT_PAD) / Math.max(unitsEnd(S.H), 1);
    return Math.min(Math.max(s, fitScale() * 0.999), maxS, 400);
  }

  function resize() {
    var dpr = window.devicePixelRatio || 1, w = viewW(), h = viewH();
    canvas.width = Math.max(1, Math.round(w * dpr));
    canvas.height = Math.max(1, Math.round(h * dpr));
    canvas.style.width = w + "px";
    canvas.style.height = h + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    spacer.style.width = Math.ceil(contentW()) + "px";
    spacer.style.height = Math.ceil(contentH()) + "px";
  }

  // --- drawing --------------------------------------------------------

  var hatch = null;
  function hatchPattern() {
    if (hatch) return hatch;
    var c = document.createElement("canvas");
    c.width = c.height = 6;
    var g = c.getContext("2d");
    g.fillStyle = "#f1f3f4";
    g.fillRect(0, 0, 6, 6);
    g.strokeStyle = "#c3c8cd";
    g.lineWidth = 2;
    g.beginPath();
    g.moveTo(-1, 7); g.lineTo(7, -1);
    g.moveTo(-4, 4); g.lineTo(4, -4);
    g.moveTo(2, 10); g.lineTo(10, 2);
    g.stroke();
    hatch = ctx.createPattern(c, "repeat");
    return hatch;
  }

  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-12))));
    var m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  function fmtNum(x) {
    if (Math.abs(x) >= 1e6 || (Math.abs(x) < 1e-3 && x !== 0)) return x.toExponential(2).replace("e+", "e");
    return String(Math.round(x * 1000) / 1000);
  }

  var pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; draw(); });
  }

  function draw() {
    var H = S.H, ops = H.ops, w = viewW(), h = viewH();
    var sx = scroller.scrollLeft, sy = scroller.scrollTop;
    ctx.clearRect(0, 0, w, h);
    ctx.font = FONT;
    ctx.textBaseline = "middle";
    var hl = highlighted(), st = steps(), dim = hl.size > 0;
    var u0 = (sx - LEFT_PAD) / S.scale, u1 = (sx + w - LABEL_W) / S.scale;
    var first = Math.max(0, Math.floor(sy / LANE_H)), last = Math.min(H.lanes.length - 1, Math.floor((sy + h - AXIS_H) / LANE_H));
    var xOf = function (u) { return LABEL_W + LEFT_PAD + u * S.scale - sx; };
    var xEnd = LABEL_W + LEFT_PAD + unitsEnd(H) * S.scale + RIGHT_PAD - 8 - sx;
    var drawn = 0;

    // Lane stripes.
    for (var l = first; l <= last; l++) {
      var y = AXIS_H + l * LANE_H - sy;
      ctx.fillStyle = l % 2 ? COLORS.laneB : COLORS.laneA;
      ctx.fillRect(LABEL_W, y, w - LABEL_W, LANE_H);
    }
    // Grid lines under the bars.
    var tick = axisTicks(u0, u1);
    ctx.strokeStyle = COLORS.grid;
    ctx.lineWidth = 1;
    ctx.beginPath();
    tick.forEach(function (u) { var x = Math.round(xOf(u)) + 0.5; ctx.moveTo(x, AXIS_H); ctx.lineTo(x, h); });
    ctx.stroke();

    var later = []; // highlighted bars are drawn last, on top
    for (l = first; l <= last; l++) {
      var lane = H.lanes[l], list = lane.ops;
      var yb = AXIS_H + l * LANE_H - sy + (LANE_H - BAR_H) / 2;
      // First operation that ends in view: a lane's operations never
      // overlap, so their ends grow with their calls.
      var lo = 0, hi = list.length;
      while (lo < hi) {
        var mid = (lo + hi) >> 1;
        if (uRet(H, list[mid]) < u0) lo = mid + 1; else hi = mid;
      }
      for (var k = lo; k < list.length; k++) {
        var i = list[k], a = uCall(H, i);
        if (a > u1) break;
        var kind = hl.get(i);
        if (kind) { later.push([i, yb, kind]); continue; }
        bar(i, yb, xOf(a), uRet(H, i), xOf, xEnd, null, dim, st.get(i));
        drawn++;
      }
    }
    later.forEach(function (b) {
      bar(b[0], b[1], xOf(uCall(H, b[0])), uRet(H, b[0]), xOf, xEnd, b[2], false, st.get(b[0]));
      drawn++;
    });

    // Sticky lane names.
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, AXIS_H, LABEL_W, h - AXIS_H);
    ctx.strokeStyle = "#d8dee4";
    ctx.beginPath(); ctx.moveTo(LABEL_W - 0.5, AXIS_H); ctx.lineTo(LABEL_W - 0.5, h); ctx.stroke();
    ctx.font = MONO;
    for (l = first; l <= last; l++) {
      var yl = AXIS_H + l * LANE_H - sy + LANE_H / 2;
      ctx.fillStyle = COLORS.ink;
      ctx.fillText(clip(H.lanes[l].name, LABEL_W - 16), 10, yl);
    }
    // Sticky axis.
    ctx.font = FONT;
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, w, AXIS_H);
    ctx.strokeStyle = "#d8dee4";
    ctx.beginPath(); ctx.moveTo(0, AXIS_H - 0.5); ctx.lineTo(w, AXIS_H - 0.5); ctx.stroke();
    ctx.fillStyle = COLORS.muted;
    ctx.textAlign = "center";
    tick.forEach(function (u) {
      var x = xOf(u);
      if (x < LABEL_W + 8) return;
      ctx.fillText(S.axis === "time" ? fmtNum(u) : "#" + (u + 1), x, AXIS_H / 2);
      ctx.fillRect(Math.round(x), AXIS_H - 5, 1, 5);
    });
    ctx.textAlign = "left";
    ctx.fillStyle = COLORS.ink;
    ctx.fillText(S.axis === "time" ? "time \u2212 t0" : "event", 10, AXIS_H / 2);

    S.drawn = drawn;
    document.body.setAttribute("data-drawn", String(drawn));
  }

  function axisTicks(u0, u1) {
    var step = niceStep(110 / S.scale);
    if (S.axis === "order") step = Math.max(1, Math.round(step));
    var out = [], start = Math.max(0, Math.floor(u0 / step) * step);
    for (var u = start; u <= u1 && out.length < 400; u += step) out.push(u);
    return out;
  }

  function clip(text, maxW) {
    if (ctx.measureText(text).width <= maxW) return text;
    var s = text;
    while (s.length > 1 && ctx.measureText(s + "\u2026").width > maxW) s = s.slice(0, -1);
    return s + "\u2026";
  }

  // bar draws operation i; kind is "core", "weak" or null.
  function bar(i, y, x0, uR, xOf, xEnd, kind, dim, step) {
    var H = S.H, status = H.ops.status[i], open = uR === Infinity;
    var x1 = open ? Math.max(xEnd, x0 + 24) : xOf(uR);
    var left = Math.max(x0, LABEL_W - 4), right = Math.min(x1, viewW() + 4);
    if (x1 - x0 < 2) { x1 = x0 + 2; right = Math.max(right, x1); }
    var bw = right - left;
    if (bw <= 0) return;
    ctx.save();
    ctx.globalAlpha = dim ? 0.28 : 1;
    var textColor = COLORS.okText;
    if (kind === "core") {
      ctx.fillStyle = COLORS.core;
      ctx.fillRect(left, y, bw, BAR_H);
      ctx.strokeStyle = "#7a1512";
      ctx.lineWidth = 1.5;
      ctx.strokeRect(left + 0.75, y + 0.75, bw - 1.5, BAR_H - 1.5);
    } else if (kind === "weak") {
      ctx.fillStyle = "#fff1f0";
      ctx.fillRect(left, y, bw, BAR_H);
      ctx.strokeStyle = COLORS.core;
      ctx.lineWidth = 2;
      ctx.setLineDash([5, 3]);
      ctx.strokeRect(left + 1, y + 1, bw - 2, BAR_H - 2);
      textColor = COLORS.core;
    } else if (status === "fail") {
      ctx.fillStyle = hatchPattern();
      ctx.fillRect(left, y, bw, BAR_H);
      ctx.strokeStyle = COLORS.fail;
      ctx.lineWidth = 1;
      ctx.strokeRect(left + 0.5, y + 0.5, bw - 1, BAR_H - 1);
      textColor = COLORS.failText;
    } else if (status === "info") {
      var g = ctx.createLinearGradient(left, 0, right, 0);
      g.addColorStop(0, "rgba(217, 162, 27, 0.35)");
      g.addColorStop(1, "rgba(217, 162, 27, 0.02)");
      ctx.fillStyle = g;
      ctx.fillRect(left, y, bw, BAR_H);
      ctx.strokeStyle = COLORS.info;
      ctx.lineWidth = 1.5;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(right, y + 0.75); ctx.lineTo(left + 0.75, y + 0.75); ctx.lineTo(left + 0.75, y + BAR_H - 0.75); ctx.lineTo(right, y + BAR_H - 0.75);
      ctx.stroke();
      textColor = "#5c4500";
    } else {
      ctx.fillStyle = COLORS.ok;
      ctx.fillRect(left, y, bw, BAR_H);
    }
    if (open && x1 <= viewW() + 4) {
      // An unknown outcome runs out to the right: an arrow head says so.
      ctx.setLineDash([]);
      ctx.fillStyle = kind ? COLORS.core : COLORS.info;
      ctx.beginPath();
      ctx.moveTo(x1, y + BAR_H / 2); ctx.lineTo(x1 - 7, y + 2); ctx.lineTo(x1 - 7, y + BAR_H - 2);
      ctx.fill();
    }
    if (i === S.hover) {
      ctx.setLineDash([]);
      ctx.strokeStyle = "#111";
      ctx.lineWidth = 2;
      ctx.strokeRect(left + 1, y - 1, bw - 2, BAR_H + 2);
    }
    // Text: the witness step, then the label, as far as they fit.
    var label = H.short[i], text = step ? step + " \u00b7 " + label : label;
    var room = bw - 8 - (open ? 10 : 0);
    ctx.fillStyle = textColor;
    ctx.font = FONT;
    if (room > 6) {
      var tw = ctx.measureText(text).width;
      var t = tw <= room ? text : (step && ctx.measureText(String(step)).width <= room ? String(step) : null);
      if (t === null && room > 30) t = clip(text, room);
      if (t) {
        if (step && t === String(step)) ctx.font = "bold " + FONT;
        ctx.fillText(t, left + 4, y + BAR_H / 2 + 0.5);
      }
    }
    ctx.restore();
  }

  // --- zoom and scroll ------------------------------------------------

  // zoomTo sets the scale, keeping the axis point under px (view x) still.
  function zoomTo(s, px) {
    var H = S.H;
    s = clampScale(s);
    if (px === undefined) px = LABEL_W + (viewW() - LABEL_W) / 2;
    var u = (scroller.scrollLeft + px - LABEL_W - LEFT_PAD) / S.scale;
    S.scale = s;
    resize();
    scroller.scrollLeft = Math.max(0, u * s + LABEL_W + LEFT_PAD - px);
    status();
    draw();
    return H;
  }

  // focus zooms and scrolls so that the given operations fill the view.
  function focus(ids) {
    var H = S.H;
    if (!ids.length) return;
    var a = Infinity, b = -Infinity, l0 = Infinity, l1 = -Infinity;
    ids.forEach(function (i) {
      a = Math.min(a, uCall(H, i));
      var r = uRet(H, i);
      b = Math.max(b, r === Infinity ? uCall(H, i) : r);
      l0 = Math.min(l0, H.ops.lane[i]);
      l1 = Math.max(l1, H.ops.lane[i]);
    });
    var span = Math.max(b - a, 1e-9);
    S.scale = clampScale((viewW() - LABEL_W - RIGHT_PAD - 40) / (span * 1.1));
    resize();
    scroller.scrollLeft = Math.max(0, a * S.scale - 40 - span * 0.05 * S.scale);
    var mid = (l0 + l1) / 2 * LANE_H;
    scroller.scrollTop = Math.max(0, mid - (viewH() - AXIS_H) / 2);
    status();
    draw();
  }

  function status() {
    var H = S.H, n = H.n;
    var s = n + " operation" + (n === 1 ? "" : "s") + " in " + H.lanes.length + " lane" + (H.lanes.length === 1 ? "" : "s");
    s += " \u00b7 zoom " + fmtNum(S.scale / fitScale()) + "\u00d7";
    s += " \u00b7 Ctrl+wheel or +/\u2212 to zoom, drag the scroll bars or use the wheel to move";
    if (S.axis === "time") s += " \u00b7 t0 = " + H.h.t0;
    $("status").textContent = s;
  }

  // --- tooltip --------------------------------------------------------

  function hit(ev) {
    var H = S.H, r = scroller.getBoundingClientRect();
    var x = ev.clientX - r.left, y = ev.clientY - r.top;
    if (x < LABEL_W || y < AXIS_H) return -1;
    var l = Math.floor((y - AXIS_H + scroller.scrollTop) / LANE_H);
    if (l < 0 || l >= H.lanes.length) return -1;
    var yIn = (y - AXIS_H + scroller.scrollTop) - l * LANE_H;
    if (yIn < (LANE_H - BAR_H) / 2 - 2 || yIn > (LANE_H + BAR_H) / 2 + 2) return -1;
    var u = (x - LABEL_W - LEFT_PAD + scroller.scrollLeft) / S.scale, slack = 3 / S.scale;
    var list = H.lanes[l].ops;
    for (var k = 0; k < list.length; k++) {
      var i = list[k], a = uCall(H, i), b = uRet(H, i);
      if (a - slack > u) break;
      if (u <= (b === Infinity ? Infinity : b) + slack) return i;
    }
    return -1;
  }

  function absTime(off) {
    try { return (BigInt(S.H.h.t0) + BigInt(off)).toString(); } catch (e) { return String(off); }
  }

  function showTip(ev, i) {
    var H = S.H, ops = H.ops;
    if (i < 0) { tip.hidden = true; return; }
    var ret = ops.ret[i] < 0 ? "\u221e (outcome unknown)" : absTime(ops.ret[i]);
    var lines = [ops.label[i], "process " + H.lanes[ops.lane[i]].name + ", " + ops.status[i],
      "called " + absTime(ops.call[i]) + ", returned " + ret, "index " + ops.index[i]];
    var st = steps().get(i);
    if (st) lines.push("step " + st + " of the " + H.h.results[S.order].consistency + " witness");
    var kind = highlighted().get(i);
    if (kind === "core") lines.push("in the violating core");
    if (kind === "weak") lines.push("in the core, weakened: may take effect at any time, or never");
    tip.textContent = lines.join("\n");
    tip.hidden = false;
    var r = stage.getBoundingClientRect();
    var x = ev.clientX - r.left + 14, y = ev.clientY - r.top + 14;
    if (x + tip.offsetWidth > r.width) x = Math.max(0, ev.clientX - r.left - tip.offsetWidth - 10);
    if (y + tip.offsetHeight > r.height) y = Math.max(0, ev.clientY - r.top - tip.offsetHeight - 10);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  // --- side panel -----------------------------------------------------

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function opChip(i, weak) {
    var b = el("button", "op" + (weak ? " weak" : ""), S.H.ops.label[i]);
    b.type = "button";
    b.title = weak ? "weakened: may take effect at any time, or never" : "show in the timeline";
    b.addEventListener("click", function () { focus([i]); });
    return b;
  }

  function side() {
    var H = S.H, h = H.h, box = $("side");
    box.textContent = "";
    if (h.warnings.length) {
      box.appendChild(el("h2", "", "Warnings"));
      h.warnings.forEach(function (w) { box.appendChild(el("p", "warn", w)); });
    }
    box.appendChild(el("h2", "", "Results"));
    h.results.forEach(function (r, ri) {
      var card = el("div", "result");
      var head = el("div", "head");
      head.appendChild(el("span", "crit", r.consistency + (r.object ? " \u00b7 " + r.object : "")));
      head.appendChild(el("span", "pill v-" + r.valid, r.valid));
      head.appendChild(el("span", "meta", (r.method ? r.method + ", " : "") + fmtNum(r.elapsed_ms) + " ms"));
      card.appendChild(head);
      if (r.reason) card.appendChild(el("div", "reason", r.reason));
      var acts = el("div", "acts");
      if (r.witness.length) {
        var ob = el("button", "chip order" + (S.order === ri ? " on" : ""), "number the witness (" + r.witness.length + " steps)");
        ob.type = "button";
        ob.addEventListener("click", function () { setOrder(S.order === ri ? -1 : ri); });
        acts.appendChild(ob);
      }
      r.violations.forEach(function (v, vi) {
        var on = S.sel && S.sel.r === ri && S.sel.v === vi;
        var n = v.core ? v.core.ops.length + v.core.weakened.length : v.ops.length;
        var name = (v.pattern || "violation") + (r.violations.length > 1 ? " " + (vi + 1) : "") + " \u00b7 " + n + " ops";
        var b = el("button", "chip" + (on ? " on" : ""), name);
        b.type = "button";
        b.addEventListener("click", function () { select(on ? null : { r: ri, v: vi }, true); });
        acts.appendChild(b);
      });
      if (acts.childNodes.length) card.appendChild(acts);
      box.appendChild(card);
    });
    if (h.ladder) {
      box.appendChild(el("h2", "", "Ladder"));
      var p = el("div", "ladder");
      p.appendChild(el("b", "", "strongest satisfied: "));
      p.appendChild(document.createTextNode(h.ladder.strongest_satisfied.join(", ") || "none"));
      p.appendChild(el("br"));
      p.appendChild(el("b", "", "weakest violated: "));
      p.appendChild(document.createTextNode(h.ladder.weakest_violated.join(", ") || "none"));
      box.appendChild(p);
    }
    if (S.sel) box.appendChild(explanation(h.results[S.sel.r], h.results[S.sel.r].violations[S.sel.v]));
  }

  function explanation(r, v) {
    var wrap = el("div", "");
    var c = v.core;
    wrap.appendChild(el("h2", "", c ? "Why not " + r.consistency + ": the core" : "Why not " + r.consistency));
    var box = el("div", "explain");
    if (c) {
      var n = c.ops.length + c.weakened.length;
      box.appendChild(el("div", "sub", n + " operation" + (n === 1 ? "" : "s") + ": " + c.ops.length + " as recorded, " +
        c.weakened.length + " weakened" + (c.minimal ? "; minimal" : "; not shown minimal (time ran out)")));
      if (c.story) box.appendChild(el("p", "story", c.story));
      var ops = el("div", "ops");
      c.ops.forEach(function (i) { ops.appendChild(opChip(i, false)); });
      c.weakened.forEach(function (i) { ops.appendChild(opChip(i, true)); });
      box.appendChild(ops);
      if (c.timeline) {
        var pre = el("pre", "timeline", c.timeline.replace(/\s+$/, ""));
        if (n > 8) {
          // A large core's text timeline wraps; the canvas shows it better.
          var d = el("details", "");
          d.appendChild(el("summary", "sub", "the core as text"));
          d.appendChild(pre);
          box.appendChild(d);
        } else {
          box.appendChild(pre);
        }
      }
      if (c.facts.length) {
        var ul = el("ul");
        c.facts.forEach(function (f) { ul.appendChild(el("li", "", f)); });
        box.appendChild(ul);
      }
    } else {
      var vops = el("div", "ops");
      v.ops.forEach(function (i) { vops.appendChild(opChip(i, false)); });
      box.appendChild(vops);
    }
    // With a core, the checker's words are among its facts.
    if (v.explanation && !c) box.appendChild(el("p", "story", v.explanation));
    wrap.appendChild(box);
    return wrap;
  }

  // --- state changes --------------------------------------------------

  function setOrder(ri) {
    S.order = ri;
    $("order").value = String(ri);
    side();
    draw();
  }

  function select(sel, zoom) {
    S.sel = sel;
    document.body.setAttribute("data-highlighted", String(highlighted().size));
    side();
    if (sel && zoom) focus(Array.from(highlighted().keys()));
    else draw();
  }

  function show(hi) {
    S.hi = hi;
    var h = data.histories[hi];
    S.H = layout(h);
    $("file").textContent = h.file + " \u00b7 " + h.model;
    $("summary").textContent = h.summary;
    // Numbers: the first witness; highlight: the first violation.
    S.order = -1;
    S.sel = null;
    var sel = $("order");
    sel.textContent = "";
    var none = el("option", "", "none");
    none.value = "-1";
    sel.appendChild(none);
    h.results.forEach(function (r, ri) {
      if (!r.witness.length) return;
      var o = el("option", "", r.consistency + " witness" + (r.object ? " (" + r.object + ")" : ""));
      o.value = String(ri);
      sel.appendChild(o);
      if (S.order < 0) S.order = ri;
    });
    sel.value = String(S.order);
    h.results.some(function (r, ri) {
      if (r.violations.length) { S.sel = { r: ri, v: 0 }; return true; }
      return false;
    });
    S.axis = S.H.occupancy < 0.1 ? "order" : "time";
    Array.prototype.forEach.call(document.querySelectorAll("input[name=axis]"), function (r) { r.checked = r.value === S.axis; });
    document.body.setAttribute("data-bars", String(S.H.n));
    document.body.setAttribute("data-lanes", String(S.H.lanes.length));
    document.body.setAttribute("data-highlighted", String(highlighted().size));
    // Start where one can read the bars: the whole history when it is
    // small, else a zoom at which a typical operation is about 40 px wide,
    // and at the violation when there is one.
    S.scale = 1;
    resize();
    S.scale = fitScale();
    if (S.H.n > 400) S.scale = clampScale(40 / Math.max(S.axis === "time" ? S.H.medianDur : 2, 1e-9));
    resize();
    scroller.scrollLeft = 0;
    scroller.scrollTop = 0;
    side();
    if (S.sel && S.H.n > 60) focus(Array.from(highlighted().keys()));
    status();
    draw();
  }

  // --- wiring ---------------------------------------------------------

  if (data.histories.length > 1) {
    var pick = $("pick");
    data.histories.forEach(function (h, i) {
      var o = el("option", "", h.file);
      o.value = String(i);
      pick.appendChild(o);
    });
    pick.addEventListener("change", function () { show(Number(pick.value)); });
    $("pick-wrap").hidden = false;
  }
  var bars = 0;
  data.histories.forEach(function (h) { bars += h.ops.lane.length; });
  window.histcheckBars = bars;
  document.body.setAttribute("data-bars-total", String(bars));

  scroller.addEventListener("scroll", schedule);
  scroller.addEventListener("wheel", function (ev) {
    if (!ev.ctrlKey && !ev.metaKey) return;
    ev.preventDefault();
    var r = scroller.getBoundingClientRect();
    zoomTo(S.scale * Math.exp(-ev.deltaY * 0.0025), ev.clientX - r.left);
  }, { passive: false });
  scroller.addEventListener("mousemove", function (ev) {
    var i = hit(ev);
    if (i !== S.hover) { S.hover = i; schedule(); }
    showTip(ev, i);
  });
  scroller.addEventListener("mouseleave", function () { S.hover = -1; tip.hidden = true; schedule(); });
  scroller.addEventListener("keydown", function (ev) {
    if (ev.key === "+" || ev.key === "=") zoomTo(S.scale * 1.5);
    else if (ev.key === "-") zoomTo(S.scale / 1.5);
    else if (ev.key === "0") zoomTo(fitScale());
    else if (ev.key === "c" && S.sel) focus(Array.from(highlighted().keys()));
    else return;
    ev.preventDefault();
  });
  $("zoom-in").addEventListener("click", function () { zoomTo(S.scale * 1.5); });
  $("zoom-out").addEventListener("click", function () { zoomTo(S.scale / 1.5); });
  $("zoom-fit").addEventListener("click", function () { zoomTo(fitScale()); scroller.scrollLeft = 0; });
  $("zoom-core").addEventListener("click", function () { if (S.sel) focus(Array.from(highlighted().keys())); });
  $("order").addEventListener("change", function () { setOrder(Number($("order").value)); });
  Array.prototype.forEach.call(document.querySelectorAll("input[name=axis]"), function (r) {
    r.addEventListener("change", function () {
      var before = fitScale(), rel = S.scale / before;
      S.axis = r.value;
      S.scale = clampScale(fitScale() * rel);
      resize();
      status();
      draw();
    });
  });
  window.addEventListener("resize", function () { S.scale = clampScale(S.scale); resize(); status(); draw(); });

  // Open on the first history with a violation: that is what one looks for.
  var start = 0;
  data.histories.some(function (h, i) {
    var bad = h.results.some(function (r) { return r.violations.length > 0; });
    if (bad) start = i;
    return bad;
  });
  if (data.histories.length > 1) $("pick").value = String(start);
  if (data.histories.length) show(start);
  else $("status").textContent = "no histories in this report";
  document.body.setAttribute("data-ready", "1");
})();
