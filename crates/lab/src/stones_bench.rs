//! `blitty bench stones` (the X server charstones): charstones (one character per write()) and stringstones
//! (a 96-character string per write()) into each target; characters per second, and what the
//! reading side paid per 1,000 characters (CPU, read() and write() calls): the bench's own
//! plain reader and hidden engine, `blitty run` (its --stats), and tmux, screen and xterm
//! (their processes sampled from /proc).

use std::fmt::Write as _;

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::charts;
use crate::report::{header, machine, Context, Error, Section};

use crate::common::xvfb::Xvfb;
use crate::terminals::{probe_once, probe_with_stats, thread_cost, Options, ReaderCost, Sampler, Target, ALL};

pub struct StonesRow {
    pub target: Target,
    /// (characters per second, the reader's cost) for charstones, then stringstones.
    pub results: Vec<Result<(f64, Option<ReaderCost>), String>>,
}

/// `blitty bench stones` (the X server charstones): charstones (one character per write()) and stringstones
/// (a 96-character string per write()) into each target; characters per second, and what the
/// reading side paid per 1,000 characters (CPU, read() and write() calls) where blitty can
/// measure it: its own plain reader and hidden engine, and `blitty run` (from its --stats).
pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<(Vec<usize>, Vec<StonesRow>), String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-stones-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let sizes = if opts.quick { vec![20_000, 200_000] } else { vec![200_000, 2_000_000] };
    let source = include_str!("../probes/writes.c").as_bytes();
    let xvfb = Xvfb::for_xterm();
    let mut rows = Vec::new();
    for target in ALL.into_iter().filter(|&t| opts.wants(t)) {
        let mut results = Vec::new();
        for (k, &n) in sizes.iter().enumerate() {
            let path = dir.join(format!("stones{k}.txt"));
            let text: Vec<u8> = source.iter().copied().cycle().take(n).collect();
            std::fs::write(&path, &text).map_err(|e| e.to_string())?;
            progress(&format!("stones: {} / {}", target.name(), if k == 0 { "charstones" } else { "stringstones" }));
            let method = if k == 0 { 6 } else { 8 };
            let before = thread_cost();
            let sampler = match target {
                Target::Tmux => Some(Sampler::start("tmux", format!("blitty-bench-w-{}", std::process::id()))),
                Target::Screen => Some(Sampler::start("screen", format!("blitty-bench-{}", std::process::id()))),
                Target::Xterm => Some(Sampler::start("xterm", dir.display().to_string())),
                _ => None,
            };
            let res = if target == Target::Blitty {
                probe_with_stats(opts, &dir, &path, method)
            } else {
                probe_once(opts, target, &xvfb, &dir, &path, method, true).map(|c| (c, None))
            };
            let sampled = sampler.map(Sampler::finish);
            let after = thread_cost();
            results.push(res.and_then(|(cost, stats)| {
                let p = cost.processed.ok_or("the terminal did not answer the DSR")?;
                let reader = match target {
                    Target::PlainReader | Target::HiddenEngine => Some(ReaderCost {
                        cpu: after.cpu - before.cpu,
                        reads: after.reads - before.reads,
                        writes: after.writes - before.writes,
                    }),
                    Target::Blitty => stats,
                    _ => sampled,
                };
                Ok((n as f64 / p.max(1e-9), reader))
            }));
        }
        rows.push(StonesRow { target, results });
    }
    drop(xvfb);
    let _ = std::fs::remove_dir_all(&dir);
    Ok((sizes, rows))
}

/// `bench stones`: charstones and stringstones per target, table, chart and verdicts.
pub fn experiment(ctx: &Context, progress: &mut dyn FnMut(&str)) -> Result<Section, Error> {
    let (sizes, rows) = run(&Options::of(ctx), progress)?;
    let md = stones_markdown(&sizes, &rows, &ctx.command);
    let j = serde_json::json!({
        "command": ctx.command, "machine": machine(), "characters": sizes,
        "rows": rows.iter().map(|r| serde_json::json!({
            "target": r.target.name(),
            "results": r.results.iter().map(|x| match x {
                Ok((cps, cost)) => serde_json::json!({"chars_per_s": cps, "reader_cpu_s": cost.map(|c| c.cpu), "reader_reads": cost.map(|c| c.reads), "reader_writes": cost.map(|c| c.writes)}),
                Err(e) => serde_json::json!({"missing": e}),
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    let groups: Vec<String> = rows.iter().map(|r| r.target.name().to_string()).collect();
    let series: Vec<charts::Series> = ["charstones", "stringstones"]
        .iter()
        .enumerate()
        .map(|(k, name)| charts::Series {
            name: name.to_string(),
            values: rows.iter().map(|r| r.results.get(k).and_then(|x| x.as_ref().ok()).map(|x| x.0)).collect(),
        })
        .collect();
    charts::bars(&ctx.out.join("stones.svg"), "Characters per second", "chars/s", &groups, &series)?;
    Ok(Section { name: "stones", markdown: md, json: j })
}

fn stones_markdown(sizes: &[usize], rows: &[StonesRow], command: &str) -> String {
    let mut s = header("stones: charstones and stringstones (the X server charstones)", command, true);
    let _ = writeln!(
        s,
        "charstones: {} characters, one per write(); stringstones: {} characters, 96 per write(); raw mode; timed until the terminal answers a DSR after them. The reader's cost is what the terminal side paid per 1,000 characters: for the plain reader and the hidden engine, the bench's own thread; for blitty run, its --stats; for tmux, screen and xterm, their processes (client and server) sampled from /proc every 5 ms, including their start-up.  \n",
        sizes.first().unwrap_or(&0),
        sizes.get(1).unwrap_or(&0)
    );
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    t.set_header(vec![
        "target",
        "test",
        "chars/s",
        "reader CPU ms per 1000 chars",
        "reader read() per 1000 chars",
        "reader write() per 1000 chars",
    ]);
    let mut char_cps = Vec::new();
    for r in rows {
        for (k, res) in r.results.iter().enumerate() {
            let test = if k == 0 { "charstones" } else { "stringstones" };
            let n = sizes.get(k).copied().unwrap_or(1) as f64 / 1000.0;
            match res {
                Ok((cps, cost)) => {
                    if k == 0 {
                        char_cps.push((r.target, *cps));
                    }
                    let per = |v: f64| format!("{:.2}", v / n);
                    t.add_row(vec![
                        r.target.name().to_string(),
                        test.into(),
                        format!("{cps:.0}"),
                        cost.map_or("not measured".into(), |c| format!("{:.3}", 1000.0 * c.cpu / n)),
                        cost.map_or("-".into(), |c| per(c.reads)),
                        cost.map_or("-".into(), |c| per(c.writes)),
                    ]);
                }
                Err(e) => {
                    t.add_row(vec![
                        r.target.name().to_string(),
                        test.into(),
                        e.clone(),
                        "-".into(),
                        "-".into(),
                        "-".into(),
                    ]);
                }
            }
        }
    }
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(s, "The seed (X11R3 on a Sun 3/50, 1988): charstones 112-115 characters/s against stringstones 3,316-4,540 whatever the optimisation; under 2% of the time was drawing, the rest read/select/writev/gettimeofday and call overhead.  ");
    for r in rows {
        if let (Some(Ok((c, Some(cc)))), Some(Ok((st, _)))) = (r.results.first(), r.results.get(1)) {
            let _ = writeln!(
                s,
                "{}: stringstones run {:.0}x faster than charstones; with one character per write() the reader makes {:.0} read() calls per 1,000 characters.  ",
                r.target.name(),
                st / c.max(1e-9),
                cc.reads / (sizes.first().copied().unwrap_or(1) as f64 / 1000.0)
            );
        }
    }
    s
}
