// The histcheck report viewer: draws one history at a time on a canvas,
// one lane per process, only the part in view, so that tens of thousands of
// operations stay responsive. Everything it shows comes from the JSON blob
// in #histcheck-data.
(function () {
  "use strict";

  var LABEL_W = 120; // lane names column; narrower in a narrow window (resize)
  // What "weakened" means, where the page says it.
  var WEAK = "kept only with unknown outcome, it may have taken effect at any time after its call, or never";
  var MAX_LABEL = 60; // characters of an operation's label in the side panel; the rest on hover
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
    // Operations outside a highlighted violation: paler than the rest but
    // drawn opaque, their labels as readable as any (see contrast).
    okDim: "#d6e2f0", okDimEdge: "#a9bdd6", okDimText: "#1f2328",
    laneA: "#ffffff", laneB: "#f6f8fa", grid: "#e6eaee", ink: "#1f2328", muted: "#59636e"
  };

  var data = JSON.parse(document.getElementById("histcheck-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var canvas = $("canvas"), ctx = canvas.getContext("2d");
  var scroller = $("scroller"), spacer = $("spacer"), stage = $("stage"), tip = $("tip");

  var S = {
    hi: 0, // history shown
    H: null, // its layout
    by: "process", // lanes: one per "process", or per "key" with the process in each label
    step: -1, // step of the longest legal order shown in the side panel, -1 the last
    scale: 1, // px per unit of the axis
    axis: "time",
    order: -1, // result whose witness numbers the bars, -1 none, -2 the violation shown (violationNumbers)
    sel: null, // {r, v}: the violation highlighted
    hover: -1,
    only: false, // only the violation's lanes are laid out
    names: null, // labels of the explanation shown's operations that need their index (names)
    drawn: 0
  };

  // --- layout ---------------------------------------------------------

  // A lane is drawn as one or more tracks: a process's lane is one track;
  // a key's lane has as many tracks as its operations need so that none
  // overlap. Tracks of one lane share its group number. With keep (the
  // bars of a violation), only the lanes that hold one of them are laid
  // out; the others' operations are not drawn.
  function layout(h, by, keep) {
    var ops = h.ops, n = ops.lane.length, i;
    var keyed = by === "key" && hasKeys(h);
    var lanes = keyed ? keyTracks(ops, n) : h.lanes.map(function (l, g) {
      return { name: l.name, client: l.client, group: g, first: true, ops: [] };
    });
    var end = 0;
    for (i = 0; i < n; i++) {
      if (!keyed) lanes[ops.lane[i]].ops.push(i);
      end = Math.max(end, ops.call[i], ops.ret[i]);
    }
    var trackOf = new Int32Array(n);
    lanes.forEach(function (l, t) {
      l.ops.sort(function (a, b) { return ops.call[a] - ops.call[b] || a - b; });
      l.ops.forEach(function (j) { trackOf[j] = t; });
    });
    var allGroups = countGroups(lanes), allTracks = lanes.length;
    if (keep) {
      var groups = new Set();
      keep.forEach(function (_, j) { groups.add(lanes[trackOf[j]].group); });
      lanes = lanes.filter(function (l) { return groups.has(l.group); });
      trackOf.fill(-1);
      lanes.forEach(function (l, t) { l.ops.forEach(function (j) { trackOf[j] = t; }); });
    }
    // The caller's annotations, each lane of them below the operations'.
    var notes = h.notes || [], noteLane = {};
    notes.forEach(function (a, k) {
      if (!(a.lane in noteLane)) {
        noteLane[a.lane] = lanes.length;
        lanes.push({ name: a.lane, client: "", group: allGroups + lanes.length, first: true, ops: [], notes: [] });
      }
      lanes[noteLane[a.lane]].notes.push(k);
      end = Math.max(end, a.end);
    });
    // Event order: every distinct call and return time gets a slot.
    var times = [];
    for (i = 0; i < n; i++) {
      times.push(ops.call[i]);
      if (ops.ret[i] >= 0) times.push(ops.ret[i]);
    }
    notes.forEach(function (a) { times.push(a.start, a.end); });
    times.sort(function (a, b) { return a - b; });
    var uniq = [];
    for (i = 0; i < times.length; i++) if (i === 0 || times[i] !== times[i - 1]) uniq.push(times[i]);
    var durs = [];
    for (i = 0; i < n; i++) if (ops.ret[i] >= 0) durs.push(ops.ret[i] - ops.call[i]);
    durs.sort(function (a, b) { return a - b; });
    // In a process's lane the label need not repeat the process; in a
    // key's lane it names it.
    var short = ops.label.map(function (lab, k) {
      var c = h.lanes[ops.lane[k]].client + ":";
      if (!keyed && lab.indexOf(c) === 0) lab = lab.slice(c.length);
      return shortTxn(lab);
    });
    var busy = 0;
    for (i = 0; i < durs.length; i++) busy += durs[i];
    return {
      h: h, ops: ops, n: n, lanes: lanes, end: end, uniq: uniq, short: short, keyed: keyed, trackOf: trackOf,
      groups: countGroups(lanes), allGroups: allGroups,
      medianDur: durs.length ? durs[Math.floor(durs.length / 2)] : 1,
      // The share of lane time that operations fill: low when they are
      // short bursts far apart, where the event order reads better.
      occupancy: end > 0 && allTracks ? busy / (end * allTracks) : 1
    };
  }

  // shortTxn shows a transaction on its bar by its micro-operations:
  // "txn([[append x 1] [r y nil]])" as "[append x 1] [r y nil]", which a
  // narrow bar cuts to its first micro-operation rather than to "txn([[".
  function shortTxn(lab) {
    var m = /^(.*?)txn\(\[(\[.*\])\]\)$/.exec(lab);
    return m ? m[1] + m[2] : lab;
  }

  function countGroups(lanes) {
    var n = 0;
    lanes.forEach(function (l, t) { if (t === 0 || l.group !== lanes[t - 1].group) n++; });
    return n;
  }

  function hasKeys(h) { return !!(h.ops.key && h.ops.key.length); }

  // keyTracks makes a lane per key, in the order keys first appear, each
  // with the fewest tracks a first fit by call gives.
  function keyTracks(ops, n) {
    var byKey = new Map(), keys = [], tracks = [];
    for (var i = 0; i < n; i++) {
      var k = ops.key[i] || "";
      if (!byKey.has(k)) { byKey.set(k, []); keys.push(k); }
      byKey.get(k).push(i);
    }
    keys.forEach(function (k, g) {
      var list = byKey.get(k), ends = [], rows = [];
      list.sort(function (a, b) { return ops.call[a] - ops.call[b] || a - b; });
      list.forEach(function (j) {
        var r = 0;
        while (r < ends.length && !(ends[r] < ops.call[j])) r++;
        if (r === ends.length) { ends.push(0); rows.push([]); }
        ends[r] = ops.ret[j] < 0 ? Infinity : ops.ret[j];
        rows[r].push(j);
      });
      rows.forEach(function (ids, r) {
        tracks.push({ name: k === "" ? "(no key)" : "key " + k, client: "", group: g, first: r === 0, ops: ids });
      });
    });
    return tracks;
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

  // selSteps is the selected violation's longest legal order, or null.
  function selSteps() {
    if (!S.sel) return null;
    return S.H.h.results[S.sel.r].violations[S.sel.v].steps || null;
  }

  // numbers maps each numbered bar to its number as drawn: a witness's
  // step, or the violation shown's own (violationNumbers).
  function numbers() {
    if (S.order === -2) return violationNumbers(selViolation());
    var m = new Map();
    if (S.order < 0) return m;
    S.H.h.results[S.order].witness.forEach(function (i, k) { m.set(i, String(k + 1)); });
    return m;
  }

  // violationNumbers numbers a violation's operations as its side panel
  // names them: the steps of its longest legal order (and a cross on the
  // operation that could not follow), or its cycle's transactions T1, T2,
  // … as drawn and as its explanation names them. A violation with
  // neither has no numbers: its operations are marked by colour only.
  function violationNumbers(v) {
    var m = new Map();
    if (!v) return m;
    var st = v.steps;
    if (st) {
      st.ops.forEach(function (i, k) { m.set(i, String(stepNumber(st, k))); });
      if (st.stuck >= 0) m.set(st.stuck, "\u2717");
    } else if (v.cycle) {
      v.cycle.nodes.forEach(function (n, k) { if (n.bar >= 0) m.set(n.bar, "T" + (k + 1)); });
    }
    return m;
  }

  function selViolation() {
    return S.sel ? S.H.h.results[S.sel.r].violations[S.sel.v] : null;
  }

  // numbersBy says what numbers the bars, for the page's readers.
  function numbersBy() {
    if (S.order >= 0) return "witness:" + S.H.h.results[S.order].consistency;
    var v = S.order === -2 ? selViolation() : null;
    if (v && v.steps) return "steps";
    if (v && v.cycle) return "cycle";
    return "none";
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

  // sizeLanes fits the lanes to the window: in a narrow one the lane
  // names get less room, the bars more, and lanes are lower, so that more
  // of a violation's lanes are in view.
  function sizeLanes() {
    var narrow = viewW() < 560;
    LABEL_W = narrow ? 64 : 120;
    LANE_H = narrow ? 22 : 28;
    BAR_H = narrow ? 16 : 18;
  }

  // fewerLanes says whether the violation shown has operations in fewer
  // lanes than the history: else showing only its lanes changes nothing.
  function fewerLanes() {
    if (!S.sel) return false;
    var ops = S.H.ops, seen = new Set();
    highlighted().forEach(function (_, i) { seen.add(S.H.keyed ? (ops.key[i] || "") : ops.lane[i]); });
    return seen.size < S.H.allGroups;
  }

  // relayout lays the history out again, with only the violation's lanes
  // when so asked.
  function relayout() {
    S.H = layout(S.H.h, S.by, S.only && S.sel ? highlighted() : null);
    marklanes();
  }

  function resize() {
    sizeLanes();
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
    var hl = highlighted(), st = numbers(), dim = hl.size > 0;
    var u0 = (sx - LEFT_PAD) / S.scale, u1 = (sx + w - LABEL_W) / S.scale;
    var first = Math.max(0, Math.floor(sy / LANE_H)), last = Math.min(H.lanes.length - 1, Math.floor((sy + h - AXIS_H) / LANE_H));
    var xOf = function (u) { return LABEL_W + LEFT_PAD + u * S.scale - sx; };
    var xEnd = LABEL_W + LEFT_PAD + unitsEnd(H) * S.scale + RIGHT_PAD - 8 - sx;
    var drawn = 0;

    // Lane stripes.
    for (var l = first; l <= last; l++) {
      var y = AXIS_H + l * LANE_H - sy;
      ctx.fillStyle = H.lanes[l].group % 2 ? COLORS.laneB : COLORS.laneA;
      ctx.fillRect(LABEL_W, y, w - LABEL_W, LANE_H);
      if (H.keyed && H.lanes[l].first && l > 0) {
        ctx.fillStyle = COLORS.grid;
        ctx.fillRect(0, y, w, 1);
      }
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
    var notesDrawn = 0;
    for (l = first; l <= last; l++) {
      if (!H.lanes[l].notes) continue;
      var yn = AXIS_H + l * LANE_H - sy + (LANE_H - BAR_H) / 2;
      H.lanes[l].notes.forEach(function (k) { if (note(H.h.notes[k], yn, xOf)) notesDrawn++; });
    }
    document.body.setAttribute("data-notes-drawn", String(notesDrawn));
    var inView = 0;
    later.forEach(function (b) {
      if (bar(b[0], b[1], xOf(uCall(H, b[0])), uRet(H, b[0]), xOf, xEnd, b[2], false, st.get(b[0])) &&
          b[1] >= AXIS_H && b[1] + BAR_H <= h) inView++;
      drawn++;
    });

    // Sticky lane names.
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, AXIS_H, LABEL_W, h - AXIS_H);
    ctx.strokeStyle = "#d8dee4";
    ctx.beginPath(); ctx.moveTo(LABEL_W - 0.5, AXIS_H); ctx.lineTo(LABEL_W - 0.5, h); ctx.stroke();
    ctx.font = MONO;
    for (l = first; l <= last; l++) {
      if (!H.lanes[l].first && l !== first) continue; // a key's name on its first track in view
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
    // How many of the highlighted operations are in view, wholly in
    // height and in part in width: where one looks first.
    document.body.setAttribute("data-highlighted-in-view", String(inView));
  }

  function axisTicks(u0, u1) {
    var step = niceStep(110 / S.scale);
    if (S.axis === "order") step = Math.max(1, Math.round(step));
    var out = [], start = Math.max(0, Math.floor(u0 / step) * step);
    for (var u = start; u <= u1 && out.length < 400; u += step) out.push(u);
    return out;
  }

  // note draws an annotation: a mark of its colours from its start to its
  // end (an instant, a narrow one), its label on it. It says whether any
  // of it is in view.
  function note(a, y, xOf) {
    var u = function (t) { return S.axis === "time" ? t : rank(S.H, t); };
    var x0 = xOf(u(a.start)), x1 = Math.max(xOf(u(a.end)), x0 + 4);
    var left = Math.max(x0, LABEL_W - 4), right = Math.min(x1, viewW() + 4);
    if (right - left <= 0) return false;
    ctx.save();
    // A colour the canvas cannot read leaves the one set before it.
    ctx.fillStyle = "#e3e6ea";
    ctx.fillStyle = a.background || "#e3e6ea";
    ctx.fillRect(left, y, right - left, BAR_H);
    ctx.strokeStyle = COLORS.muted;
    ctx.lineWidth = 1;
    ctx.strokeRect(left + 0.5, y + 0.5, right - left - 1, BAR_H - 1);
    ctx.fillStyle = COLORS.ink;
    ctx.fillStyle = a.color || COLORS.ink;
    ctx.font = MONO;
    // A mark too narrow for its label (an instant) has it beside it.
    if (right - left > 14) ctx.fillText(clip(a.label, right - left - 8), left + 4, y + BAR_H / 2);
    else ctx.fillText(clip(a.label, 160), right + 4, y + BAR_H / 2);
    ctx.restore();
    return true;
  }

  function clip(text, maxW) {
    if (ctx.measureText(text).width <= maxW) return text;
    var s = text;
    while (s.length > 1 && ctx.measureText(s + "\u2026").width > maxW) s = s.slice(0, -1);
    return s + "\u2026";
  }

  // bar draws operation i; kind is "core", "weak" or null; dim says a
  // violation is highlighted and i is not in it. It says whether any of
  // the bar is in view.
  function bar(i, y, x0, uR, xOf, xEnd, kind, dim, step) {
    var H = S.H, status = H.ops.status[i], open = uR === Infinity;
    var x1 = open ? Math.max(xEnd, x0 + 24) : xOf(uR);
    var left = Math.max(x0, LABEL_W - 4), right = Math.min(x1, viewW() + 4);
    // A very short operation is still a mark one can see and point at;
    // one of the violation shown, a wider one.
    var minW = kind ? 6 : 2;
    if (x1 - x0 < minW) { x1 = x0 + minW; right = Math.max(right, x1); }
    var bw = right - left;
    if (bw <= 0) return false;
    ctx.save();
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
    } else if (dim) {
      ctx.fillStyle = COLORS.okDim;
      ctx.fillRect(left, y, bw, BAR_H);
      ctx.strokeStyle = COLORS.okDimEdge;
      ctx.lineWidth = 1;
      ctx.strokeRect(left + 0.5, y + 0.5, bw - 1, BAR_H - 1);
      textColor = COLORS.okDimText;
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
      // Too long: the number and as much of the label as fits, else the
      // number alone.
      var t = tw <= room ? text : null;
      if (t === null && room > 60) t = clip(text, room);
      if (t === null && step && ctx.measureText(String(step)).width <= room) t = String(step);
      if (t === null && room > 30) t = clip(text, room);
      if (t) {
        if (step && t === String(step)) ctx.font = "bold " + FONT;
        ctx.fillText(t, left + 4, y + BAR_H / 2 + 0.5);
      }
    }
    ctx.restore();
    return true;
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
    if (!ids.length) return;
    // An operation in a lane not shown brings every lane back.
    if (S.only && ids.some(function (i) { return S.H.trackOf[i] < 0; })) {
      S.only = false;
      $("only").checked = false;
      relayout();
    }
    var H = S.H;
    var a = Infinity, b = -Infinity, l0 = Infinity, l1 = -Infinity;
    ids.forEach(function (i) {
      a = Math.min(a, uCall(H, i));
      var r = uRet(H, i);
      b = Math.max(b, r === Infinity ? uCall(H, i) : r);
      l0 = Math.min(l0, H.trackOf[i]);
      l1 = Math.max(l1, H.trackOf[i]);
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
    var s = n + " operation" + (n === 1 ? "" : "s") + " in " + H.allGroups + (H.keyed ? " key" : "") + " lane" + (H.allGroups === 1 ? "" : "s");
    if (H.groups < H.allGroups) s += ", " + H.groups + " shown: the violation's";
    s += " \u00b7 zoom " + fmtNum(S.scale / fitScale()) + "\u00d7";
    if (S.axis === "time") s += " \u00b7 t0 = " + H.h.t0;
    var box = $("status");
    box.textContent = s;
    // How to zoom and move, which a narrow window leaves out (CSS).
    box.appendChild(el("span", "hint", " \u00b7 Ctrl+wheel or +/\u2212 to zoom, drag the scroll bars or use the wheel to move"));
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

  // laneAt is the track under the lane names column, or -1.
  function laneAt(ev) {
    var r = scroller.getBoundingClientRect();
    var x = ev.clientX - r.left, y = ev.clientY - r.top;
    if (x >= LABEL_W || y < AXIS_H) return -1;
    var l = Math.floor((y - AXIS_H + scroller.scrollTop) / LANE_H);
    return l >= 0 && l < S.H.lanes.length ? l : -1;
  }

  function placeTip(ev) {
    var r = stage.getBoundingClientRect();
    var x = ev.clientX - r.left + 14, y = ev.clientY - r.top + 14;
    if (x + tip.offsetWidth > r.width) x = Math.max(0, ev.clientX - r.left - tip.offsetWidth - 10);
    if (y + tip.offsetHeight > r.height) y = Math.max(0, ev.clientY - r.top - tip.offsetHeight - 10);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  // showLaneTip gives a lane's full name, which the column may cut.
  function showLaneTip(ev, l) {
    var lane = S.H.lanes[l], n = 0;
    S.H.lanes.forEach(function (t) { if (t.group === lane.group) n += t.ops.length; });
    tip.textContent = lane.name + "\n" + n + " operation" + (n === 1 ? "" : "s");
    tip.hidden = false;
    placeTip(ev);
  }

  // stepLines says where operation i stands in the selected violation's
  // longest legal order, and the model's state after it.
  function stepLines(i) {
    var st = selSteps(), out = [];
    if (!st) return out;
    var k = st.ops.indexOf(i);
    if (k >= 0) {
      out.push("step " + (st.total - st.ops.length + k + 1) + " of the longest legal order (" + st.total + " steps)");
      if (stateOf(st, k) !== null) out.push("state after it: " + stateOf(st, k));
    }
    if (i === st.stuck) out.push("cannot take effect next" + (st.said ? ": " + st.said : ""));
    return out;
  }

  function absTime(off) {
    try { return (BigInt(S.H.h.t0) + BigInt(off)).toString(); } catch (e) { return String(off); }
  }

  function showTip(ev, i) {
    var H = S.H, ops = H.ops;
    if (i < 0) { tip.hidden = true; return; }
    var ret = ops.ret[i] < 0 ? "\u221e (outcome unknown)" : absTime(ops.ret[i]);
    var lines = [ops.label[i], "process " + H.h.lanes[ops.lane[i]].name + ", " + ops.status[i],
      "called " + absTime(ops.call[i]) + ", returned " + ret, "index " + ops.index[i]];
    var num = numbers().get(i);
    if (num && S.order >= 0) lines.push("step " + num + " of the " + H.h.results[S.order].consistency + " witness");
    if (num && numbersBy() === "cycle") lines.push(num + " of the cycle");
    var kind = highlighted().get(i);
    if (kind === "core") lines.push("in the violating core");
    if (kind === "weak") lines.push("in the core, weakened: " + WEAK);
    if (H.keyed && ops.key[i]) lines.push("key " + ops.key[i]);
    lines = lines.concat(stepLines(i));
    tip.textContent = lines.join("\n");
    tip.hidden = false;
    placeTip(ev);
  }

  // --- side panel -----------------------------------------------------

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // cut shows text in node, at most max characters; the full text is
  // then the node's title, shown on hover.
  function cut(node, text, max) {
    if (text.length <= max) { node.textContent = text; return node; }
    node.textContent = text.slice(0, max - 1) + "\u2026";
    node.title = text;
    node.classList.add("cut");
    return node;
  }

  // opChip names operation i; a click shows it in the timeline. Its
  // number, when the bars are numbered, is the bar's.
  function opChip(i, weak, nums) {
    var b = el("button", "op" + (weak ? " weak" : ""));
    var num = nums.get(i);
    if (num) {
      b.appendChild(el("b", "num", num));
      b.setAttribute("data-bar", String(i));
      b.setAttribute("data-num", num);
    }
    b.appendChild(cut(el("span", "lab"), nameOf(i), MAX_LABEL));
    b.type = "button";
    b.title = weak ? "weakened: " + WEAK + "; click to show it in the timeline" : "show in the timeline";
    b.addEventListener("click", function () { focus([i]); });
    return b;
  }

  // side fills the side panel: what went wrong first (the violation
  // shown, then warnings), then where the history stands (the ladder) and
  // every result; a ladder's fifteen results would otherwise push the
  // violation out of sight.
  function side() {
    var H = S.H, h = H.h, box = $("side");
    box.textContent = "";
    if (h.error) {
      box.appendChild(el("h2", "", "Not checked"));
      box.appendChild(el("p", "warn", h.error));
    }
    if (S.sel) box.appendChild(explanation(h.results[S.sel.r], h.results[S.sel.r].violations[S.sel.v]));
    if (h.warnings.length) {
      box.appendChild(el("h2", "", "Warnings"));
      h.warnings.forEach(function (w) { box.appendChild(el("p", "warn", w)); });
    }
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
    box.appendChild(el("h2", "", "Results"));
    h.results.forEach(function (r, ri) { box.appendChild(resultCard(h, r, ri)); });
    if (h.notes && h.notes.length) box.appendChild(noteList(h.notes));
    mark();
  }

  // noteList lists the annotations beside the timeline, each with its
  // lane, times and details, in its own colours.
  function noteList(notes) {
    var box = el("div", "notes");
    box.appendChild(el("h2", "", "Annotations"));
    notes.forEach(function (a) {
      var p = el("p", "note");
      var lab = el("span", "note-label", a.label);
      lab.style.color = a.color;
      lab.style.background = a.background;
      p.appendChild(lab);
      p.appendChild(document.createTextNode(" " + a.lane + ", " + absTime(a.start) +
        (a.end > a.start ? "\u2013" + absTime(a.end) : "")));
      if (a.details) p.appendChild(el("pre", "note-details", a.details));
      p.title = a.details || a.label;
      box.appendChild(p);
    });
    return box;
  }

  function resultCard(h, r, ri) {
    var card = el("div", "result");
    var head = el("div", "head");
    head.appendChild(el("span", "crit", r.consistency + (r.object ? " \u00b7 " + r.object : "")));
    head.appendChild(el("span", "pill v-" + r.valid, r.valid));
    head.appendChild(el("span", "meta", (r.method ? r.method + ", " : "") + fmtNum(r.elapsed_ms) + " ms"));
    card.appendChild(head);
    if (r.reason) card.appendChild(el("div", "reason", r.reason));
    if (h.keys && r.consistency === "linearizable" && r.valid === "false" && !r.object) card.appendChild(el("div", "reason", keysLine(h.keys)));
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
      var name = (v.pattern || "violation") + (r.violations.length > 1 ? " " + (vi + 1) : "") +
        (v.key ? " \u00b7 key " + v.key : "") + " \u00b7 " + n + " ops";
      var b = el("button", "chip" + (on ? " on" : ""), name);
      b.type = "button";
      b.addEventListener("click", function () { select(on ? null : { r: ri, v: vi }, true); });
      acts.appendChild(b);
    });
    if (acts.childNodes.length) card.appendChild(acts);
    return card;
  }

  // keysLine is the per-key breakdown of a failing linearizability check.
  function keysLine(k) {
    var s = "keys: " + k.failed + " of " + k.keys + " failed";
    if (k.reads > 0) s += "; " + k.unplaced_reads + " of the " + k.reads + " reads on them could not be placed (each contradicts its key's writes on its own)";
    if (k.reads_skipped) s += " (reads not counted on keys with appends or compare-and-sets, or past the count's limit)";
    return s;
  }

  // mark records on the body what the side panel shows, for tests and
  // tools that read the page.
  function mark() {
    var box = $("side"), b = document.body;
    b.setAttribute("data-steps", String(box.querySelectorAll(".step[data-step]").length));
    b.setAttribute("data-states", String(box.querySelectorAll(".step[data-step] .st").length));
    b.setAttribute("data-truncated", String(document.querySelectorAll(".cut[title], text[data-cut]").length));
    b.setAttribute("data-cycles", String(box.querySelectorAll("svg.cycle").length));
    b.setAttribute("data-notes", String(box.querySelectorAll("p.note").length));
    b.setAttribute("data-cycle-edges", String(box.querySelectorAll("svg.cycle g.edge").length));
    // What numbers the bars, each numbered bar as bar:number, and the
    // numbers the side panel gives the operations it names, alike: the
    // two must agree.
    b.setAttribute("data-numbers-by", numbersBy());
    var drawn = [];
    numbers().forEach(function (num, i) { drawn.push(i + ":" + num); });
    b.setAttribute("data-numbers", drawn.sort().join(" "));
    var named = {};
    Array.prototype.forEach.call(box.querySelectorAll("[data-num]"), function (e) {
      named[e.getAttribute("data-bar") + ":" + e.getAttribute("data-num")] = true;
    });
    b.setAttribute("data-side-numbers", Object.keys(named).sort().join(" "));
    b.setAttribute("data-side-text", box.textContent.length > 0 ? "1" : "0");
    var why = box.querySelector(".why");
    b.setAttribute("data-why-top", why ? String(Math.round(why.getBoundingClientRect().top)) : "");
    b.setAttribute("data-why-first", why && box.firstChild === why ? "1" : "0");
    b.setAttribute("data-ascii-timeline", String(box.querySelectorAll("pre.timeline").length));
    fits();
  }

  // fits records whether the side panel lies wholly within the window,
  // and how far the page reaches past the window's width (0: it does
  // not scroll sideways; the timeline scrolls within its own frame).
  function fits() {
    var r = $("side").getBoundingClientRect(), w = window.innerWidth, h = window.innerHeight;
    var ok = r.width > 0 && r.height > 0 && r.left >= -0.5 && r.top >= -0.5 && r.right <= w + 0.5 && r.bottom <= h + 0.5;
    document.body.setAttribute("data-side-fits", ok ? "1" : "0");
    document.body.setAttribute("data-side-box", [r.left, r.top, r.right, r.bottom, w, h].map(Math.round).join(" "));
    var doc = document.documentElement;
    document.body.setAttribute("data-overflow-x", String(Math.max(0, doc.scrollWidth - doc.clientWidth, document.body.scrollWidth - doc.clientWidth)));
    document.body.setAttribute("data-width", String(doc.clientWidth));
  }

  // explanation shows the violation v of result r: its story, its
  // operations, its longest legal order or its cycle, and nothing the
  // timeline already draws.
  function explanation(r, v) {
    S.names = names(v);
    var wrap = el("div", "why");
    var c = v.core, nums = violationNumbers(v);
    var head = "Why not " + r.consistency + (r.object ? " \u00b7 " + r.object : "");
    if (v.key && !r.object) head += " \u00b7 key " + v.key;
    if (v.pattern) head += ": " + v.pattern;
    wrap.appendChild(el("h2", "", head));
    var box = el("div", "explain");
    if (c) {
      var n = c.ops.length + c.weakened.length;
      box.appendChild(el("div", "sub", "the core: " + n + " operation" + (n === 1 ? "" : "s") + ", " + c.ops.length + " as recorded, " +
        c.weakened.length + " weakened" + (c.minimal ? "; minimal" : "; not shown minimal (time ran out)")));
      if (c.story) box.appendChild(el("p", "story", c.story));
      var ops = el("div", "ops");
      c.ops.forEach(function (i) { ops.appendChild(opChip(i, false, nums)); });
      c.weakened.forEach(function (i) { ops.appendChild(opChip(i, true, nums)); });
      box.appendChild(ops);
      if (v.steps) box.appendChild(stepsPanel(v.steps));
    } else if (!drawnInCycle(v)) {
      var vops = el("div", "ops");
      v.ops.forEach(function (i) { vops.appendChild(opChip(i, false, nums)); });
      box.appendChild(vops);
      if (v.steps) box.appendChild(stepsPanel(v.steps));
    }
    if (v.cycle) box.appendChild(cycleSVG(v.cycle));
    // With a core, the story says it.
    if (v.explanation && !c) box.appendChild(el("p", "story words", v.explanation));
    wrap.appendChild(box);
    return wrap;
  }

  // names labels the operations one explanation names, as the text form
  // does: each by its label, and, when two of them render alike, with
  // "#" and its index (its position when their indexes coincide too), so
  // that no label stands for two operations.
  function names(v) {
    var ops = S.H.ops, ids = [];
    if (v.core) ids = ids.concat(v.core.ops, v.core.weakened);
    else ids = ids.concat(v.ops);
    if (v.steps) {
      ids = ids.concat(v.steps.ops);
      if (v.steps.stuck >= 0) ids.push(v.steps.stuck);
    }
    // Maps, as labels come from the input and may be any string.
    var bars = new Set(), byLabel = new Map();
    ids.forEach(function (i) {
      if (bars.has(i)) return;
      bars.add(i);
      var lab = ops.label[i];
      if (!byLabel.has(lab)) byLabel.set(lab, []);
      byLabel.get(lab).push(i);
    });
    var m = new Map();
    byLabel.forEach(function (list, lab) {
      if (list.length < 2) return;
      var seen = new Set(), byPos = false;
      list.forEach(function (i) { if (seen.has(ops.index[i])) byPos = true; seen.add(ops.index[i]); });
      list.forEach(function (i) { m.set(i, lab + "#" + (byPos ? i : ops.index[i])); });
    });
    return m;
  }

  // nameOf is operation i's label in the explanation shown.
  function nameOf(i) {
    return (S.names && S.names.get(i)) || S.H.ops.label[i];
  }

  // drawnInCycle says whether v's cycle drawing names every operation of
  // v, which then needs no list of its own.
  function drawnInCycle(v) {
    if (!v.cycle || v.steps) return false;
    var bars = {};
    v.cycle.nodes.forEach(function (n) { bars[n.bar] = true; });
    return v.ops.every(function (i) { return bars[i]; });
  }

  // --- the longest legal order, step by step --------------------------

  function stepsPanel(st) {
    var wrap = el("div", "steps-wrap");
    wrap.appendChild(el("h3", "", "Longest legal order before the failure"));
    var shown = st.ops.length, skipped = st.total - shown;
    var note = st.total + " operation" + (st.total === 1 ? "" : "s") + " took effect in this order";
    note += st.stuck >= 0 ? "; then the marked one could not." : ".";
    if (skipped > 0) note += " Only the last " + shown + " steps are shown, to keep the page light.";
    if (shown && !st.states.length) note += " The checker kept no states for this order.";
    else if (st.states_from > 0) note += " States are kept for the last " + st.states.length + " steps only.";
    if (st.states_cut) note += " " + st.states_cut + " long states are shortened.";
    wrap.appendChild(el("div", "sub", note));
    var k = S.step >= 0 && S.step < shown ? S.step : shown - 1;
    if (k >= 0) wrap.appendChild(stateNow(st, k));
    var list = el("div", "steps");
    list.setAttribute("role", "list");
    st.ops.forEach(function (i, j) { list.appendChild(stepRow(st, i, j, j === k)); });
    if (st.stuck >= 0) {
      var row = el("div", "step stuck");
      row.setAttribute("role", "listitem");
      row.setAttribute("data-bar", String(st.stuck));
      row.setAttribute("data-num", "\u2717");
      row.appendChild(el("span", "n", "\u2717"));
      row.appendChild(cut(el("span", "lab"), nameOf(st.stuck), MAX_LABEL));
      row.appendChild(cut(el("span", "st"), "cannot take effect" + (st.said ? ": " + st.said : ""), 90));
      row.addEventListener("click", function () { focus([st.stuck]); });
      list.appendChild(row);
    }
    wrap.appendChild(list);
    return wrap;
  }

  function stepNumber(st, j) { return st.total - st.ops.length + j + 1; }

  // stateOf is the model's state after step j, or null when not kept.
  function stateOf(st, j) {
    var k = j - st.states_from;
    return k >= 0 && k < st.states.length ? st.states[k] : null;
  }

  // stateNow is the model's state after step j, in full.
  function stateNow(st, j) {
    var box = el("div", "state-now");
    var head = el("div", "sub");
    head.appendChild(document.createTextNode("state after step " + stepNumber(st, j) + ", "));
    head.appendChild(cut(el("span", "mono"), nameOf(st.ops[j]), MAX_LABEL));
    box.appendChild(head);
    var now = stateOf(st, j);
    box.appendChild(el("pre", "state" + (now === null ? " none" : ""), now === null ? "(not kept)" : now));
    return box;
  }

  function stepRow(st, i, j, on) {
    var row = el("div", "step" + (on ? " on" : ""));
    row.setAttribute("role", "listitem");
    row.setAttribute("data-step", String(j));
    row.setAttribute("data-bar", String(i));
    row.setAttribute("data-num", String(stepNumber(st, j)));
    row.appendChild(el("span", "n", String(stepNumber(st, j))));
    row.appendChild(cut(el("span", "lab"), nameOf(i), MAX_LABEL));
    if (stateOf(st, j) !== null) row.appendChild(cut(el("span", "st"), "\u2192 " + stateOf(st, j), 90));
    row.addEventListener("click", function () { showStep(j, false); focus([i]); });
    return row;
  }

  // showStep shows step j in the side panel; from the timeline, the row
  // is scrolled into view.
  function showStep(j, scroll) {
    var st = selSteps(), box = $("side"), now = box.querySelector(".state-now");
    S.step = j;
    if (!st || !now) { side(); return; }
    // In place, so that the list keeps its scroll position.
    now.parentNode.replaceChild(stateNow(st, j), now);
    Array.prototype.forEach.call(box.querySelectorAll(".step[data-step]"), function (r) {
      r.classList.toggle("on", r.getAttribute("data-step") === String(j));
    });
    var row = box.querySelector(".step.on");
    if (row && scroll) row.scrollIntoView({ block: "nearest" });
  }

  // --- a transactional anomaly's cycle, drawn -------------------------

  // The SVG namespace, from an svg element the HTML parser made: the page
  // names no address.
  var SVG = $("svg-ns").namespaceURI;
  var CYC = { w: 470, x: 8, boxW: 300, line: 15, pad: 7, gap: 44, maxMops: 10, mopChars: 44, headChars: 38, edgeChars: 22 };

  // fitCycle sizes the drawing to the side panel, so that its text is
  // drawn at its own size rather than scaled down in a narrow panel: the
  // boxes take what the arrows around them leave, and lines are cut to
  // the characters that fit.
  function fitCycle() {
    var side = $("side"), cs = window.getComputedStyle(side);
    var room = side.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 16; // the box's rule and indent
    CYC.w = Math.max(280, Math.min(470, Math.floor(room)));
    CYC.boxW = CYC.w - 170;
    CYC.headChars = Math.floor((CYC.boxW - 16) / 6.7);
    CYC.mopChars = Math.floor((CYC.boxW - 22) / 6.7);
    CYC.edgeChars = 22;
  }

  function svgEl(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // svgText is a line of text cut to max characters, its full text in a
  // title when cut.
  function svgText(x, y, cls, text, max) {
    var t = svgEl("text", { x: x, y: y, "class": cls });
    if (text.length > max) {
      t.textContent = text.slice(0, max - 1) + "\u2026";
      t.appendChild(svgEl("title", {}, text));
      t.setAttribute("data-cut", "1");
    } else {
      t.textContent = text;
    }
    return t;
  }

  // cycleSVG draws a cycle's transactions as boxes, one under the other
  // in the cycle's order, with its dependencies as labelled arrows: down
  // from each transaction to the next, and around on the right back up.
  function cycleSVG(c) {
    fitCycle();
    var y = 8, boxes = [];
    c.nodes.forEach(function (n) {
      var lines = Math.min(n.mops.length, CYC.maxMops) + (n.mops.length > CYC.maxMops ? 1 : 0);
      var h = CYC.pad * 2 + CYC.line * (1 + lines);
      boxes.push({ y: y, h: h });
      y += h + CYC.gap;
    });
    var height = y - CYC.gap + 8 + (c.edges.length - c.nodes.length + 1) * 10;
    var svg = svgEl("svg", { "class": "cycle", viewBox: "0 0 " + CYC.w + " " + height, width: "100%",
      role: "img", "aria-label": "a cycle of " + c.nodes.length + " transactions", "data-edges": c.edges.length });
    svg.style.maxWidth = CYC.w + "px";
    c.nodes.forEach(function (n, k) { svg.appendChild(txnBox(n, k, boxes[k])); });
    var around = 0;
    c.edges.forEach(function (e) {
      var down = e.to === e.from + 1;
      svg.appendChild(edgeArrow(c, e, boxes, down ? 0 : around++));
    });
    return svg;
  }

  function txnBox(n, k, b) {
    var g = svgEl("g", { "class": "txn", "data-bar": n.bar });
    if (n.bar >= 0) g.setAttribute("data-num", "T" + (k + 1));
    g.appendChild(svgEl("title", {}, "T" + (k + 1) + " = " + n.label));
    g.appendChild(svgEl("rect", { x: CYC.x, y: b.y, width: CYC.boxW, height: b.h, rx: 5 }));
    var tx = CYC.x + 8, ty = b.y + CYC.pad + 11;
    g.appendChild(svgText(tx, ty, "head", "T" + (k + 1) + "  " + n.label, CYC.headChars));
    n.mops.slice(0, CYC.maxMops).forEach(function (m, j) {
      g.appendChild(svgText(tx + 6, ty + CYC.line * (j + 1), "mop", m, CYC.mopChars));
    });
    if (n.mops.length > CYC.maxMops) {
      g.appendChild(svgEl("text", { x: tx + 6, y: ty + CYC.line * (CYC.maxMops + 1), "class": "mop more" },
        "\u2026 " + (n.mops.length - CYC.maxMops) + " more"));
    }
    if (n.bar >= 0) g.addEventListener("click", function () { focus([n.bar]); });
    return g;
  }

  // edgeArrow draws dependency e: straight down between consecutive
  // boxes, else around the right of the boxes (lane-th such arrow).
  function edgeArrow(c, e, boxes, lane) {
    var g = svgEl("g", { "class": "edge e-" + e.type, "data-type": e.type });
    var a = boxes[e.from], b = boxes[e.to], text = e.type + (e.detail ? "  " + e.detail : "");
    g.appendChild(svgEl("title", {}, "T" + (e.from + 1) + " \u2192 T" + (e.to + 1) + ": " + text));
    var path, hx, hy, dir, lx, ly;
    if (e.to === e.from + 1) {
      hx = CYC.x + 40;
      path = "M" + hx + " " + (a.y + a.h) + " V" + (b.y - 1);
      hy = b.y - 1; dir = "down";
      lx = hx + 10; ly = a.y + a.h + CYC.gap / 2 + 4;
    } else {
      var right = CYC.x + CYC.boxW, vx = right + 18 + lane * 12;
      var y0 = a.y + a.h / 2 + 6, y1 = b.y + b.h / 2 - 6;
      path = "M" + right + " " + y0 + " H" + vx + " V" + y1 + " H" + (right + 1);
      hx = right + 1; hy = y1; dir = "left";
      lx = vx + 6; ly = (y0 + y1) / 2 + 4;
    }
    g.appendChild(svgEl("path", { d: path, fill: "none" }));
    g.appendChild(svgEl("path", { "class": "head", d: arrowHead(hx, hy, dir) }));
    g.appendChild(svgText(lx, ly, "label", text, e.to === e.from + 1 ? 60 : CYC.edgeChars));
    return g;
  }

  function arrowHead(x, y, dir) {
    if (dir === "down") return "M" + (x - 5) + " " + (y - 8) + " L" + x + " " + y + " L" + (x + 5) + " " + (y - 8) + " Z";
    return "M" + (x + 8) + " " + (y - 5) + " L" + x + " " + y + " L" + (x + 8) + " " + (y + 5) + " Z";
  }

  // --- state changes --------------------------------------------------

  // numberable says whether violation v numbers operations of its own.
  function numberable(v) { return !!(v && (v.steps || v.cycle)); }

  function setOrder(ri) {
    S.order = ri;
    $("order").value = String(ri);
    side();
    draw();
  }

  // select shows violation sel; its own numbers replace the bars' when
  // it has any, and no other violation's stay.
  function select(sel, zoom) {
    S.sel = sel;
    S.step = -1;
    if (numberable(selViolation())) S.order = -2;
    else if (S.order === -2) S.order = -1;
    $("order").value = String(S.order);
    if (S.only) { relayout(); resize(); status(); }
    $("only-group").hidden = !fewerLanes();
    document.body.setAttribute("data-highlighted", String(highlighted().size));
    side();
    if (sel && zoom) focus(Array.from(highlighted().keys()));
    else draw();
  }

  function show(hi) {
    S.hi = hi;
    var h = data.histories[hi];
    S.by = hasKeys(h) ? "key" : "process";
    S.H = layout(h, S.by);
    $("lanes-group").hidden = !hasKeys(h);
    Array.prototype.forEach.call(document.querySelectorAll("input[name=lanes]"), function (r) { r.checked = r.value === S.by; });
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
    h.results.some(function (r, ri) {
      if (r.violations.length) { S.sel = { r: ri, v: 0 }; return true; }
      return false;
    });
    S.step = -1;
    if (h.results.some(function (r) { return r.violations.some(numberable); })) {
      var lo = el("option", "", "the violation shown");
      lo.value = "-2";
      sel.appendChild(lo);
    }
    // The bars are numbered as the violation shown numbers them, or not
    // at all: another criterion's witness beside one criterion's core
    // would number operations by an order the core's story does not use.
    if (S.sel) S.order = numberable(selViolation()) ? -2 : -1;
    sel.value = String(S.order);
    // In a narrow window whose lanes do not all fit, only the violation's
    // lanes are shown at first, so that its operations are in view
    // together; the toolbar shows them all again.
    sizeLanes();
    S.only = !!S.sel && viewW() < 560 && AXIS_H + S.H.lanes.length * LANE_H > viewH();
    $("only").checked = S.only;
    if (S.only) relayout();
    $("only-group").hidden = !fewerLanes();
    S.axis = S.H.occupancy < 0.1 ? "order" : "time";
    Array.prototype.forEach.call(document.querySelectorAll("input[name=axis]"), function (r) { r.checked = r.value === S.axis; });
    document.body.setAttribute("data-bars", String(S.H.n));
    marklanes();
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

  function marklanes() {
    document.body.setAttribute("data-lanes", String(S.H.groups));
    document.body.setAttribute("data-lanes-all", String(S.H.allGroups));
    document.body.setAttribute("data-tracks", String(S.H.lanes.length));
    document.body.setAttribute("data-lanes-by", S.H.keyed ? "key" : "process");
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
  document.querySelector(".legend .k-weak").title = "weakened: " + WEAK;
  var bars = 0;
  data.histories.forEach(function (h) { bars += h.ops.lane.length; });
  window.histcheckBars = bars;
  document.body.setAttribute("data-bars-total", String(bars));
  // The colours of an operation outside the violation shown, fill and
  // label, for tests that check it stays readable.
  document.body.setAttribute("data-dim-colors", COLORS.okDim + " " + COLORS.okDimText);

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
    var l = i < 0 ? laneAt(ev) : -1;
    if (l >= 0) showLaneTip(ev, l);
    else showTip(ev, i);
  });
  // A click on a step of the longest legal order shows its state.
  scroller.addEventListener("click", function (ev) {
    var i = hit(ev), st = selSteps();
    if (i < 0 || !st) return;
    var j = st.ops.indexOf(i);
    if (j >= 0) showStep(j, true);
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
  Array.prototype.forEach.call(document.querySelectorAll("input[name=lanes]"), function (r) {
    r.addEventListener("change", function () {
      S.by = r.value;
      relayout();
      $("only-group").hidden = !fewerLanes();
      resize();
      status();
      draw();
    });
  });
  $("only").addEventListener("change", function () {
    S.only = $("only").checked;
    relayout();
    resize();
    if (S.sel) focus(Array.from(highlighted().keys()));
    else { status(); draw(); }
  });
  window.addEventListener("resize", function () { S.scale = clampScale(S.scale); resize(); status(); draw(); fits(); });

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
