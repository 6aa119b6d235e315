//! `blitty bench scroll` (the syscons console post): lines of screen width written with scrolling, and without
//! (the cursor homed after each screenful), with OPOST on and off, into each target; presented
//! (blitty run, tmux, xterm) against hidden (blitty's engine parsing only, the seed's offscreen
//! vty). Each text is written with one fwrite and timed until the terminal answers a DSR.

use std::fmt::Write as _;

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::charts;
use crate::common::texts::lines_text;
use crate::common::xvfb::Xvfb;
use crate::report::{header, machine, Context, Error, Section};
use crate::terminals::{probe_once, Options, Target, ALL};

/// One target's `scroll` figures: lines per second for (scrolling, OPOST), in the order
/// scroll+opost, scroll-opost, no-scroll+opost, no-scroll-opost.
pub struct ScrollRow {
    pub target: Target,
    pub lines_per_s: Result<[f64; 4], String>,
}

/// `blitty bench scroll` (the syscons console post): lines of screen width written with scrolling, and
/// without (cursor home after each screenful), with OPOST on and off, into each target;
/// presented (blitty run, tmux, xterm) against hidden (blitty's engine parsing only). Each
/// text is written with one fwrite and timed until the terminal answers a DSR after it.
pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<(usize, Vec<ScrollRow>), String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-scroll-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let lines = if opts.quick { 5_000 } else { 50_000 };
    let mut files = Vec::new();
    for (k, (scroll, opost)) in [(true, true), (true, false), (false, true), (false, false)].into_iter().enumerate() {
        let path = dir.join(format!("scroll{k}.txt"));
        std::fs::write(&path, lines_text(lines, scroll, opost)).map_err(|e| e.to_string())?;
        files.push((path, opost));
    }
    let xvfb = Xvfb::for_xterm();
    let mut rows = Vec::new();
    for target in ALL.into_iter().filter(|&t| opts.wants(t)) {
        let mut speeds = [0f64; 4];
        let mut error = None;
        for (k, (path, opost)) in files.iter().enumerate() {
            progress(&format!("scroll: {} / case {}", target.name(), k + 1));
            // The control method (one fwrite), cooked (OPOST on) or raw (off).
            match probe_once(opts, target, &xvfb, &dir, path, 7, !opost) {
                Ok(cost) => match cost.processed {
                    Some(p) => speeds[k] = lines as f64 / p.max(1e-9),
                    None => {
                        error = Some("the terminal did not answer the DSR".to_string());
                        break;
                    }
                },
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        rows.push(ScrollRow { target, lines_per_s: error.map_or(Ok(speeds), Err) });
    }
    drop(xvfb);
    let _ = std::fs::remove_dir_all(&dir);
    Ok((lines, rows))
}

/// `bench scroll`: lines per second per target, table, chart and verdicts.
pub fn experiment(ctx: &Context, progress: &mut dyn FnMut(&str)) -> Result<Section, Error> {
    let (lines, rows) = run(&Options::of(ctx), progress)?;
    let md = scroll_markdown(lines, &rows, &ctx.command);
    let j = serde_json::json!({
        "command": ctx.command, "machine": machine(), "lines": lines,
        "columns": ["scroll, opost", "scroll, -opost", "no scroll, opost", "no scroll, -opost"],
        "rows": rows.iter().map(|r| serde_json::json!({"target": r.target.name(), "lines_per_s": r.lines_per_s.as_ref().map(|v| v.to_vec()).map_err(|e| e.clone())})).collect::<Vec<_>>(),
    });
    let groups: Vec<String> = rows.iter().map(|r| r.target.name().to_string()).collect();
    let series: Vec<charts::Series> = ["scroll, opost", "scroll, -opost", "no scroll, opost", "no scroll, -opost"]
        .iter()
        .enumerate()
        .map(|(k, name)| charts::Series {
            name: name.to_string(),
            values: rows.iter().map(|r| r.lines_per_s.as_ref().ok().map(|v| v[k])).collect(),
        })
        .collect();
    charts::bars(&ctx.out.join("scroll.svg"), "Lines of screen width per second", "lines/s", &groups, &series)?;
    Ok(Section { name: "scroll", markdown: md, json: j })
}

fn scroll_markdown(lines: usize, rows: &[ScrollRow], command: &str) -> String {
    let mut s = header("scroll: lines of screen width per second (the syscons console post)", command, true);
    let _ = writeln!(
        s,
        "{lines} lines of 80 characters in one write, timed until the terminal answers a DSR after them; \"no scroll\" homes the cursor after each screenful (24 lines); -opost is stty -opost (the text carries its own CR). \"Hidden\" is blitty's engine parsing with nothing presented (the seed's offscreen vty).  \n"
    );
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    t.set_header(vec!["target", "scroll, opost", "scroll, -opost", "no scroll, opost", "no scroll, -opost"]);
    for r in rows {
        let mut cells = vec![r.target.name().to_string()];
        match &r.lines_per_s {
            Ok(v) => cells.extend(v.iter().map(|x| format!("{x:.0}"))),
            Err(e) => cells.extend([e.clone(), "-".into(), "-".into(), "-".into()]),
        }
        t.add_row(cells);
    }
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(
        s,
        "The seed's figures: syscons scrolls at 50,000 lines/s (FreeBSD-5.2 on a PCI R9200SE); in 1990-era rows, Minix 1.6.25 on a K6/233 took 0.2 s and old Linux 1.1.36 on a 486/33 took 40.26 s for the same run (26 lines/s rescaled).  "
    );
    let get = |target: Target| rows.iter().find(|r| r.target == target).and_then(|r| r.lines_per_s.as_ref().ok());
    if let (Some(h), Some(b)) = (get(Target::HiddenEngine), get(Target::Blitty)) {
        let _ = write!(
            s,
            "Here blitty's hidden engine takes {:.0} lines/s while scrolling ({:.1}x syscons' 50,000) and blitty presenting takes {:.0}",
            h[0],
            h[0] / 50_000.0,
            b[0]
        );
        if let Some(t) = get(Target::Tmux) {
            let _ = write!(s, "; tmux takes {:.0}", t[0]);
        }
        if let Some(x) = get(Target::Xterm) {
            let _ = write!(s, "; xterm takes {:.0}", x[0]);
        }
        let change = 100.0 * (h[2] / h[0].max(1e-9) - 1.0);
        if change > 0.0 {
            let _ = writeln!(s, ". Homing the cursor instead of scrolling makes blitty's hidden engine {change:.0}% faster: scrolling is an index move, not a copy, but recycled rows must be cleared.");
        } else {
            let _ = writeln!(s, ". Scrolling costs blitty's hidden engine nothing here against homing the cursor ({:.0}% the other way): scrolling is an index move, not a copy.", -change);
        }
    }
    s
}
