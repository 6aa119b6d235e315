//! `blitty replay`: the whole file is read into memory, then fed to the engine in chunks, as a
//! terminal reading a pty would receive it.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result};
use blitty_vt::Terminal;

#[derive(clap::Args)]
pub struct Args {
    /// The recorded output stream.
    file: std::path::PathBuf,
    /// Screen size as COLSxROWS (at most 2048x1024).
    #[arg(long, default_value = "80x24", value_parser = parse_size)]
    size: (usize, usize),
    /// Bytes fed per call.
    #[arg(long, default_value_t = 65536, value_parser = clap::value_parser!(u64).range(1..))]
    chunk: u64,
    /// What to print when done.
    #[arg(long, value_enum, default_value = "screen")]
    dump: Dump,
    /// Print bytes fed, seconds, MB/s and peak resident memory.
    #[arg(long)]
    stats: bool,
    /// Scrollback lines kept (at most 100000).
    #[arg(long, default_value_t = blitty_vt::term::DEFAULT_SCROLLBACK, value_parser = crate::scrollback_lines)]
    scrollback: usize,
    /// Also draw the final screen with the pixel renderer into OUT (a PNG, at most 16384
    /// pixels a side).
    #[arg(long, value_name = "OUT")]
    png: Option<std::path::PathBuf>,
    /// The font of --png: a fontconfig name.
    #[arg(long, default_value = "DejaVu Sans Mono", requires = "png")]
    font: String,
    /// The font size of --png in points, 1 to 200 (at 96 dots per inch; times --scale, at
    /// most 400).
    #[arg(long, default_value_t = 12.0, requires = "png", value_parser = font_size)]
    font_size: f32,
    /// HiDPI scale of --png, 0.5 to 8.
    #[arg(long, default_value_t = 1.0, requires = "png", value_parser = scale)]
    scale: f32,
}

/// The font of a pixel display (`blitty window`, `blitty console`).
#[derive(clap::Args)]
pub struct FontArgs {
    /// A fontconfig font name.
    #[arg(long, default_value = "DejaVu Sans Mono")]
    font: String,
    /// The font size in points, 1 to 200 (at 96 dots per inch; times --scale, at most 400).
    #[arg(long, default_value_t = 12.0, value_parser = font_size)]
    font_size: f32,
    /// HiDPI scale, 0.5 to 8.
    #[arg(long, default_value_t = 1.0, value_parser = scale)]
    scale: f32,
}

impl FontArgs {
    /// The font found through fontconfig.
    pub fn find(&self) -> anyhow::Result<blitty_pixel::Fonts> {
        fonts(&self.font, self.font_size, self.scale)
    }
}

/// The font `name` through fontconfig; a name the machine does not have is said on stderr (the
/// monospace font is used).
fn fonts(name: &str, pt: f32, scale: f32) -> anyhow::Result<blitty_pixel::Fonts> {
    let fonts = blitty_pixel::Fonts::find(name, pt, scale).map_err(anyhow::Error::msg)?;
    if let Some(note) = &fonts.substituted {
        eprintln!("blitty: {note}");
    }
    Ok(fonts)
}

pub fn font_size(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if (1.0..=blitty_pixel::MAX_FONT_PT).contains(&v) => Ok(v),
        _ => Err(format!("expected a size from 1 to {} points", blitty_pixel::MAX_FONT_PT)),
    }
}

pub fn scale(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if (0.5..=blitty_pixel::MAX_SCALE).contains(&v) => Ok(v),
        _ => Err(format!("expected a scale from 0.5 to {}", blitty_pixel::MAX_SCALE)),
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Dump {
    /// The screen's text, one line per row, then `cursor: ROW COL` (0-based).
    Screen,
    /// The screen's text with SGR for its colours and attributes, as `tmux capture-pane -ep`
    /// prints a pane, then `cursor: ROW COL`.
    Styled,
    /// The bytes the terminal answered (DA, DSR, DECRQM, DECRQSS, ...), as it would have sent
    /// them to the program, and nothing else.
    Replies,
    /// Nothing (with --stats, only the figures).
    None,
}

/// `COLSxROWS`, columns from 1 to `MAX_COLS` (2048), rows from 1 to `MAX_ROWS` (1024).
pub fn parse_size(s: &str) -> Result<(usize, usize), String> {
    use blitty_vt::term::{MAX_COLS, MAX_ROWS};
    let bad = || format!("expected COLSxROWS with 1 to {MAX_COLS} columns and 1 to {MAX_ROWS} rows");
    match pair(s) {
        Some((c, r)) if (1..=MAX_COLS).contains(&c) && (1..=MAX_ROWS).contains(&r) => Ok((c, r)),
        _ => Err(bad()),
    }
}

/// Two numbers written `AxB` (or `AXB`): a size given on the command line.
pub fn pair(s: &str) -> Option<(usize, usize)> {
    let (a, b) = s.split_once(['x', 'X'])?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The renderer for a PNG of a `cols` x `rows` screen: refused before anything is drawn
/// when the image would pass the window's bound (16384 pixels a side). Unchecked, 2048x1024
/// cells at 200 points and scale 8 asked for 26 TB; 30x20 took 13 GB and 74 s.
fn png_renderer(fonts: blitty_pixel::Fonts, cols: usize, rows: usize) -> Result<blitty_pixel::Renderer> {
    use blitty_window::MAX_SIDE;
    let (cw, ch) = (fonts.cell_w, fonts.cell_h);
    if cols * cw > MAX_SIDE || rows * ch > MAX_SIDE {
        anyhow::bail!(
            "--png: a {cols}x{rows} screen of {cw}x{ch}-pixel cells is larger than {MAX_SIDE}x{MAX_SIDE} pixels; at this font size at most {}x{} cells",
            (MAX_SIDE / cw).min(blitty_vt::term::MAX_COLS),
            (MAX_SIDE / ch).min(blitty_vt::term::MAX_ROWS)
        );
    }
    Ok(blitty_pixel::Renderer::new(fonts, cols, rows))
}

const STDOUT: &str = "cannot write to standard output";

pub fn run(args: Args) -> Result<()> {
    let (cols, rows) = args.size;
    // A PNG that cannot be made is said before the stream is read and fed.
    let mut renderer = match &args.png {
        Some(_) => Some(png_renderer(fonts(&args.font, args.font_size, args.scale)?, cols, rows)?),
        None => None,
    };
    let data = std::fs::read(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?;
    let mut term = Terminal::with_scrollback(cols, rows, args.scrollback);
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    for chunk in data.chunks(args.chunk as usize) {
        term.feed(chunk);
        // The answers, written after each chunk as a terminal sends them (the engine holds a
        // bounded buffer of them).
        if let Dump::Replies = args.dump {
            out.write_all(&term.take_replies()).context(STDOUT)?;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    if let (Some(r), Some(png)) = (&mut renderer, &args.png) {
        r.render(term.screen());
        r.fb.write_png(png).map_err(anyhow::Error::msg)?;
    }
    match args.dump {
        Dump::Screen => out.write_all(term.screen().dump_text().as_bytes()).context(STDOUT)?,
        Dump::Styled => {
            let screen = term.screen();
            let mut styled = Vec::new();
            blitty_present::ansi::styled_rows(screen, &mut styled);
            out.write_all(&styled).context(STDOUT)?;
            writeln!(out, "cursor: {} {}", screen.cursor().y, screen.cursor().x).context(STDOUT)?;
        }
        Dump::Replies | Dump::None => {}
    }
    if args.stats {
        let mb = data.len() as f64 / 1e6;
        writeln!(out, "bytes: {}", data.len()).context(STDOUT)?;
        writeln!(out, "seconds: {secs:.6}").context(STDOUT)?;
        writeln!(out, "MB/s: {:.1}", if secs > 0.0 { mb / secs } else { f64::INFINITY }).context(STDOUT)?;
        match peak_rss_kib() {
            Some(kib) => writeln!(out, "peak RSS: {kib} KiB").context(STDOUT)?,
            None => writeln!(out, "peak RSS: unknown (no /proc/self/status)").context(STDOUT)?,
        }
    }
    // What is left in the buffer would be written at exit, a failure unsaid.
    out.flush().context(STDOUT)
}

/// VmHWM from /proc/self/status.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
