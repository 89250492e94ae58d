// SPDX-License-Identifier: GPL-2.0
/*
 * page.js - the live page. On load it reads /api/snapshot (the targets,
 * the structures, the interval) and the chosen target's whole history
 * (/api/history?pid=N), draws it with dygraphs, then polls /api/snapshot
 * (and /api/sites, with site tracking) at the sampling interval and adds
 * each new row. Every figure is a CSV column of the same name.
 */
'use strict';

(function () {
	const $ = (id) => document.getElementById(id);
	const state = {
		meta: null,		/* the latest /api/snapshot */
		pid: null,		/* the process shown */
		rows: [],		/* its rows, oldest first */
		charts: {},		/* Dygraph by chart id */
		pids: '',		/* the targets the selector lists */
		loaded: null,		/* the pid whose history rows holds */
	};

	/* "1.5 MiB", "12 B", as -f table writes them */
	function human(n) {
		const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
		let v = Math.abs(n), u = 0;

		while (v >= 1024 && u < 4) {
			v /= 1024;
			u++;
		}
		return (n < 0 ? '-' : '') + (u ? v.toFixed(1) : v) + ' ' + units[u];
	}

	function cell(tr, text, cls) {
		const td = tr.insertCell();

		td.textContent = text;
		if (cls)
			td.className = cls;
		return td;
	}

	async function getJSON(path) {
		const r = await fetch(path, { cache: 'no-store' });

		if (!r.ok)
			throw new Error(path + ': ' + r.status + ' ' + (await r.text()).trim());
		return r.json();
	}

	function intervalMs() {
		return Math.max(100, 1000 * state.meta.interval_seconds);
	}

	/* ------------------------------------------------------------ charts */

	/* Each chart: where it goes, its series, and how a row gives them. */
	function chartDefs() {
		const bytes = { labelsKMG2: true };
		const defs = [{
			id: 'heap', div: $('chart-heap'), labels: ['time', 'live bytes', 'RSS'],
			values: (r) => [r.heap_live_bytes, r.rss_bytes],
			opts: { axes: { y: bytes }, ylabel: 'bytes' },
		}];

		for (const name of state.meta.structures) {
			/* a structure read from memory (--read) adds its own two */
			const read = state.rows.some((r) => (name + '_length') in r);
			const y2 = { axis: 'y2', strokePattern: [6, 3] };

			defs.push({
				id: 'struct-' + name, div: $('chart-struct-' + name), struct: name,
				labels: ['time', 'elements', 'bytes'].concat(read ? ['length', 'retained'] : []),
				values: (r) => [r[name + '_elements'], r[name + '_bytes']].concat(read ?
					[r[name + '_length'], r[name + '_retained_bytes']] : []),
				opts: {
					ylabel: 'elements', y2label: 'bytes',
					series: { bytes: y2, retained: y2 },
					axes: { y2: { labelsKMG2: true, independentTicks: true } },
				},
			});
		}
		defs.push({
			id: 'glibc', div: $('chart-glibc'), labels: ['time', 'in use', 'free', 'mmapped'],
			values: (r) => [r.glibc_in_use_bytes, r.glibc_free_bytes, r.glibc_mmapped_bytes],
			opts: { axes: { y: bytes }, ylabel: 'bytes' },
		});
		return defs;
	}

	/* Clock times on the x axis: dygraphs labels a range of a few seconds
	 * in seconds and milliseconds ("39.500"), which reads as no time. */
	const timeAxis = {
		pixelsPerLabel: 100,	/* room for HH:MM:SS.s */
		axisLabelFormatter: (d) => {
			const two = (n) => String(n).padStart(2, '0');

			const ms = d.getMilliseconds();

			return two(d.getHours()) + ':' + two(d.getMinutes()) + ':' + two(d.getSeconds()) +
				(ms ? '.' + String(ms).padStart(3, '0').replace(/0+$/, '') : '');
		},
	};

	function hasGlibc() {
		return state.rows.some((r) => r.glibc_in_use_bytes !== null);
	}

	function draw() {
		$('glibc-section').hidden = !hasGlibc();
		for (const d of chartDefs()) {
			const g = state.charts[d.id];
			const shown = !d.div.closest('[hidden]');
			const data = state.rows.map((r) => [new Date(r.timestamp)].concat(d.values(r)));

			if (!state.rows.length || !shown)
				continue;
			if (g) {
				g.updateOptions({ file: data });
				continue;
			}
			state.charts[d.id] = new Dygraph(d.div, data, Object.assign({
				labels: d.labels, legend: 'always', labelsSeparateLines: false,
				connectSeparatedPoints: false, strokeWidth: 1.5,
			}, d.opts, { axes: Object.assign({ x: timeAxis }, d.opts.axes) }));
		}
	}

	function dropCharts() {
		for (const id of Object.keys(state.charts))
			state.charts[id].destroy();
		state.charts = {};
	}

	/* One section a structure, each with a switch. */
	function buildStructures() {
		const names = state.meta.structures;

		$('structures-section').hidden = !names.length;
		for (const name of names) {
			const box = document.createElement('div');
			const h = document.createElement('h3');
			const chart = document.createElement('div');
			const label = document.createElement('label');
			const check = document.createElement('input');

			box.className = 'struct';
			box.id = 'struct-' + name;
			h.textContent = name;
			chart.className = 'chart';
			chart.id = 'chart-struct-' + name;
			box.append(h, chart);
			$('structures').append(box);
			check.type = 'checkbox';
			check.checked = true;
			check.id = 'toggle-' + name;
			check.addEventListener('change', () => {
				box.hidden = !check.checked;
				draw();
			});
			label.append(check, ' ' + name);
			$('struct-toggles').append(label);
		}
	}

	/* ------------------------------------------------------------ tables */

	function nowTable() {
		const body = $('now').tBodies[0];
		const r = state.rows[state.rows.length - 1];
		const lines = [['heap live bytes', 'heap_live_bytes', true],
			       ['heap live allocations', 'heap_live_allocations', false],
			       ['RSS', 'rss_bytes', true]];

		for (const name of state.meta.structures)
			lines.push([name + ' elements', name + '_elements', false],
				   [name + ' bytes', name + '_bytes', true]);
		body.replaceChildren();
		lines.push(['probes (est. % of a CPU)', 'overhead_percent', false]);
		for (const [what, col, isBytes] of lines) {
			const tr = body.insertRow();
			const v = r ? r[col] : null;

			cell(tr, what, 'what');
			cell(tr, v === null || v === undefined ? '–' : String(v), 'num').id = 'now-' + col;
			cell(tr, isBytes && typeof v === 'number' ? human(v) :
				 col === 'overhead_percent' && r && r.heap_attached === 0 && state.meta.heap ?
				 'heap probes detached (--max-overhead)' : '');
		}
	}

	/* The lost_* counters: a warning only when one is not 0. */
	function lostWarning() {
		const r = state.rows[state.rows.length - 1] || {};
		const lost = Object.keys(r).filter((k) => k.startsWith('lost_') && r[k] > 0);
		const div = $('lost');

		div.hidden = !lost.length;
		div.textContent = lost.length ? 'memwatch lost events, so the figures are not exact: ' +
			lost.map((k) => k + ' = ' + r[k]).join(', ') : '';
	}

	function siteRows(tbody, list, withFlag) {
		tbody.replaceChildren();
		for (const s of list) {
			const tr = tbody.insertRow();

			cell(tr, human(s.live_bytes), 'num');
			cell(tr, String(s.live_blocks), 'num');
			cell(tr, String(s.allocs), 'num');
			if (withFlag)
				cell(tr, s.leak_suspect ? 'LEAK?' : '', 'flag');
			cell(tr, s.site, 'site');
		}
	}

	function sitesTables(t) {
		const grown = $('grown').tBodies[0];

		$('sites-section').hidden = !t;
		if (!t)
			return;
		siteRows($('sites').tBodies[0], t.sites, true);
		siteRows($('suspects').tBodies[0], t.leak_suspects, false);
		$('suspects').hidden = !t.leak_suspects.length;
		$('suspects-rule').textContent = t.leak_suspects.length ? '' : '(none)';
		$('grown-section').hidden = !t.grown_by.length;
		grown.replaceChildren();
		for (const g of t.grown_by) {
			const tr = grown.insertRow();

			cell(tr, g.struct, 'what');
			cell(tr, String(g.calls), 'num');
			cell(tr, g.site, 'site');
		}
	}

	/* ------------------------------------------------------------ data */

	function status(text) {
		$('status').textContent = text;
	}

	/* The selector lists every target; the page keeps the one shown. */
	function setMeta(snap) {
		const procs = snap.processes;
		const key = procs.map((p) => p.pid).join(',');
		const sel = $('pid');

		state.meta = snap;
		if (state.pid === null && procs.length) {
			const asked = Number(new URLSearchParams(location.search).get('pid'));

			state.pid = procs.some((p) => p.pid === asked) ? asked : procs[0].pid;
		}
		if (key === state.pids)
			return;
		state.pids = key;
		sel.replaceChildren();
		for (const p of procs)
			sel.add(new Option(p.pid + (p.comm ? ' ' + p.comm : ''), p.pid));
		sel.value = state.pid;
	}

	async function loadHistory() {
		state.rows = await getJSON('/api/history?pid=' + state.pid);
		state.loaded = state.pid;
		$('history-link').href = '/api/history?pid=' + state.pid;
	}

	async function loadSites() {
		const all = await getJSON('/api/sites');

		sitesTables(all.targets.find((t) => t.pid === state.pid));
	}

	function render() {
		const n = state.rows.length;
		let watched;

		if (state.pid === null) {
			status('no process is watched yet');
			return;
		}
		watched = state.meta.processes.some((p) => p.pid === state.pid);

		nowTable();
		lostWarning();
		draw();
		document.title = 'memwatch: pid ' + state.pid;
		status(!watched ? 'pid ' + state.pid + ' is no longer watched' :
		       n + ' samples' + (n ? ' since ' + new Date(state.rows[0].timestamp).toLocaleTimeString() : '') +
		       ', one every ' + state.meta.interval_seconds + ' s');
	}

	/* Adds the target's new row; after a gap (a tab left in the
	 * background), reads the whole history again. */
	async function addRow(row) {
		const last = state.rows[state.rows.length - 1];

		if (!row || (last && row.timestamp <= last.timestamp))
			return;
		if (last && Date.parse(row.timestamp) - Date.parse(last.timestamp) > 2.5 * intervalMs()) {
			await loadHistory();
			return;
		}
		state.rows.push(row);
		if (state.rows.length > state.meta.history_samples)
			state.rows.shift();
	}

	async function poll() {
		try {
			const snap = await getJSON('/api/snapshot');

			setMeta(snap);
			if (state.pid !== null && state.loaded !== state.pid)
				await loadHistory();	/* the first target appeared */
			else
				await addRow(snap.targets.find((t) => t.pid === state.pid));
			if (snap.sites)
				await loadSites();
			render();
		} catch (e) {
			status('cannot reach memwatch: ' + e.message);
		}
		setTimeout(poll, state.meta ? intervalMs() : 1000);
	}

	async function choose(pid) {
		state.pid = pid;
		dropCharts();
		history.replaceState(null, '', '?pid=' + pid);
		await loadHistory();
		render();
	}

	async function start() {
		for (;;) {
			try {
				setMeta(await getJSON('/api/snapshot'));
				break;
			} catch (e) {
				status('waiting for memwatch: ' + e.message);
				await new Promise((done) => setTimeout(done, 1000));
			}
		}
		buildStructures();
		$('pid').addEventListener('change', (e) => choose(Number(e.target.value)));
		if (state.pid !== null)
			await loadHistory();
		if (state.meta.sites)
			await loadSites();
		render();
		setTimeout(poll, intervalMs());
	}

	start();
})();
