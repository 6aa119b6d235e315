//! `blitty bench writes` (the modem-program post, the 1988 Pcomm test): the 16 ways of writing characters
//! (cooked or raw, times eight methods) into each target terminal, for a 4 KB text like the
//! original's and a 1 MB one. A Linux pty takes about 18 KB before its writer blocks, so a
//! 4 KB write returns before the terminal has seen it: each method is timed both until the
//! writes return and until the terminal answers a DSR sent after the text, which it does once
//! it has parsed the text (blitty and tmux answer before presenting it): the second column is
//! how fast each terminal takes characters written this way, not how fast it shows them.

use std::fmt::Write as _;

use comfy_table::{presets::ASCII_MARKDOWN, Table as TextTable};

use crate::charts;
use crate::report::{header, machine, Context, Error, Section};

use crate::common::xvfb::Xvfb;
use crate::probes::{WriteCost, WRITE_METHODS};
use crate::terminals::{probe_once, Options, Target, ALL};

#[derive(Clone, Debug)]
pub struct Table {
    pub target: Target,
    pub text: String,
    /// Characters the terminal receives: in cooked mode OPOST adds a CR to every NL.
    pub chars_cooked: usize,
    pub chars_raw: usize,
    /// (method label, cost) in the seed's order: cooked first, then raw.
    pub rows: Result<Vec<(String, WriteCost)>, String>,
}

/// The 4 KB text: C source, as the original test wrote its own source (3,994 characters).
fn texts(quick: bool) -> Vec<(String, Vec<u8>)> {
    let source = include_str!("../probes/writes.c").as_bytes();
    let mut small: Vec<u8> = source.iter().copied().cycle().take(3994).collect();
    if let Some(last) = small.last_mut() {
        *last = b'\n';
    }
    let big_len = if quick { 100_000 } else { 1_000_000 };
    let big: Vec<u8> = source.iter().copied().cycle().take(big_len).collect();
    let big_label = if quick { "100 KB text" } else { "1 MB text" };
    vec![("4 KB text (3,994 characters, like the original)".into(), small), (big_label.into(), big)]
}

pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Vec<Table>, String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-writes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let xvfb = Xvfb::for_xterm();
    let mut tables = Vec::new();
    for (label, text) in texts(opts.quick) {
        let path = dir.join("text.txt");
        std::fs::write(&path, &text).map_err(|e| e.to_string())?;
        let newlines = text.iter().filter(|&&b| b == b'\n').count();
        for target in ALL.into_iter().filter(|&t| opts.wants(t)) {
            let mut rows = Vec::new();
            let mut error = None;
            'modes: for raw in [false, true] {
                for (m, name) in WRITE_METHODS.iter().enumerate() {
                    progress(&format!(
                        "writes: {} / {label} / {} {name}",
                        target.name(),
                        if raw { "raw" } else { "cooked" }
                    ));
                    match probe_once(opts, target, &xvfb, &dir, &path, m, raw) {
                        Ok(cost) => rows.push((format!("{}, {name}", if raw { "raw" } else { "cooked" }), cost)),
                        Err(e) => {
                            error = Some(e);
                            break 'modes;
                        }
                    }
                }
            }
            tables.push(Table {
                target,
                text: label.clone(),
                chars_cooked: text.len() + newlines,
                chars_raw: text.len(),
                rows: error.map_or(Ok(rows), Err),
            });
        }
    }
    drop(xvfb);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(tables)
}

/// The modem-program post's figures, characters per second: (method, console at 9600 baud, tty000 at 9600).
pub const SEED_CPS: [(&str, f64, f64); 16] = [
    ("cooked, setbuf, fputc", 137.4, 708.8),
    ("cooked, setbuf, putc", 136.2, 719.0),
    ("cooked, setbuf, putchar", 137.3, 721.0),
    ("cooked, fputc, fflush", 134.3, 638.7),
    ("cooked, putc, fflush", 134.6, 667.5),
    ("cooked, putchar, fflush", 135.1, 667.5),
    ("cooked, write", 137.9, 744.5),
    ("cooked, fwrite", 451.8, 953.2),
    ("raw, setbuf, fputc", 121.0, 665.7),
    ("raw, setbuf, putc", 120.8, 675.0),
    ("raw, setbuf, putchar", 121.2, 675.0),
    ("raw, fputc, fflush", 118.8, 619.2),
    ("raw, putc, fflush", 119.5, 627.3),
    ("raw, putchar, fflush", 119.0, 616.0),
    ("raw, write", 120.4, 694.6),
    ("raw, fwrite", 351.9, 994.4),
];

/// `bench writes`: the 16 methods per target, tables, charts and verdicts.
pub fn experiment(ctx: &Context, progress: &mut dyn FnMut(&str)) -> Result<Section, Error> {
    let tables = run(&Options::of(ctx), progress)?;
    let md = writes_markdown(&tables, &ctx.command);
    let j = serde_json::json!({
        "command": ctx.command, "machine": machine(),
        "tables": tables.iter().map(|t| serde_json::json!({
            "target": t.target.name(), "text": t.text,
            "rows": t.rows.as_ref().map(|r| r.iter().map(|(m, c)| serde_json::json!({"method": m, "cost": c})).collect::<Vec<_>>()).map_err(|e| e.clone()),
        })).collect::<Vec<_>>(),
    });
    for (i, text) in
        tables.iter().map(|t| t.text.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().enumerate()
    {
        let of_text: Vec<&Table> = tables.iter().filter(|t| t.text == text).collect();
        let groups: Vec<String> = of_text.iter().map(|t| t.target.name().to_string()).collect();
        let series: Vec<charts::Series> = ["cooked, write", "raw, write", "raw, fwrite"]
            .iter()
            .map(|m| charts::Series {
                name: m.to_string(),
                values: of_text
                    .iter()
                    .map(|t| {
                        let chars = if m.starts_with("raw") { t.chars_raw } else { t.chars_cooked } as f64;
                        t.rows
                            .as_ref()
                            .ok()?
                            .iter()
                            .find(|(name, _)| name == m)?
                            .1
                            .processed
                            .map(|p| chars / p.max(1e-9))
                    })
                    .collect(),
            })
            .collect();
        charts::bars(
            &ctx.out.join(format!("writes-{}.svg", i + 1)),
            &format!("Characters per second until processed: {text}"),
            "chars/s",
            &groups,
            &series,
        )?;
    }
    Ok(Section { name: "writes", markdown: md, json: j })
}

fn writes_markdown(tables: &[Table], command: &str) -> String {
    let mut s = header("writes: the 16 ways of writing characters (the modem-program post)", command, true);
    let _ = writeln!(
        s,
        "\"real, returned\" is until the last write returns; \"real, processed\" is until the terminal answers a DSR sent after the text, which is what the seed asks (how fast the screen takes characters written this way); CPS uses it. A pty holds about 18 KB unread, so a 4 KB text returns at once whatever the terminal. Cooked counts the CR that OPOST adds to each NL.  \n"
    );
    for t in tables {
        let _ = writeln!(s, "### {} — {}\n", t.target.name(), t.text);
        let rows = match &t.rows {
            Ok(rows) => rows,
            Err(e) => {
                let _ = writeln!(s, "{e}\n");
                continue;
            }
        };
        let control = |raw: bool| {
            rows.iter()
                .find(|(m, _)| m == if raw { "raw, fwrite" } else { "cooked, fwrite" })
                .and_then(|(_, c)| c.processed)
        };
        let mut tb = TextTable::new();
        tb.load_preset(ASCII_MARKDOWN);
        tb.set_header(vec![
            "Method",
            "real, returned",
            "real, processed",
            "user",
            "sys",
            "CPS",
            "% of control",
            "write() per char",
            "1988 console CPS",
            "1988 tty000 CPS",
        ]);
        for (method, c) in rows {
            let raw = method.starts_with("raw");
            let chars = if raw { t.chars_raw } else { t.chars_cooked } as f64;
            let cps = c.processed.map(|p| chars / p.max(1e-9));
            let pct = match (c.processed, control(raw)) {
                (Some(p), Some(ctl)) => format!("{:.1}%", 100.0 * ctl / p.max(1e-9)),
                _ => "-".into(),
            };
            let seed = SEED_CPS.iter().find(|(m, _, _)| *m == method.as_str());
            tb.add_row(vec![
                method.clone(),
                format!("{:.4}", c.returned),
                c.processed.map_or("no answer".into(), |p| format!("{p:.4}")),
                format!("{:.3}", c.user),
                format!("{:.3}", c.sys),
                cps.map_or("-".into(), |v| format!("{v:.0}")),
                pct,
                format!("{:.2}", c.write_calls / t.chars_raw as f64),
                seed.map_or("-".into(), |x| format!("{:.1}", x.1)),
                seed.map_or("-".into(), |x| format!("{:.1}", x.2)),
            ]);
        }
        let _ = writeln!(s, "{tb}\n");
        // What this shows, from the numbers.
        let one = rows.iter().find(|(m, _)| m == "raw, write").and_then(|(_, c)| c.processed);
        if let (Some(one), Some(ctl)) = (one, control(true)) {
            let _ = writeln!(
                s,
                "The control (one fwrite) is {:.0}x faster than 1-byte writes here: each character costs a write() system call ({:.2} per character against {:.4} for the control).\n",
                one / ctl.max(1e-9),
                rows.iter().find(|(m, _)| m == "raw, write").map_or(0.0, |(_, c)| c.write_calls / t.chars_raw as f64),
                rows.iter().find(|(m, _)| m == "raw, fwrite").map_or(0.0, |(_, c)| c.write_calls / t.chars_raw as f64),
            );
        }
    }
    s
}
