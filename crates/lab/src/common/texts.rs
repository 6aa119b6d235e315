//! The texts several experiments write, made the same way wherever they are written so that
//! their figures can be set side by side: the flood files `cat` writes, the syscons console post's lines, and
//! the shell script that times a `cat` as the writer sees it.

use std::path::{Path, PathBuf};

use crate::workloads::{self, Rng};

/// The shell script that writes `file` and records how long it took, in nanoseconds, in `out`
/// (written whole, then renamed: `out` exists only once the timing is complete).
pub(crate) fn writer(file: &Path, out: &Path) -> String {
    let out = out.display();
    format!("a=$(date +%s%N); cat {}; b=$(date +%s%N); echo $((b-a)) > {out}.part; mv {out}.part {out}", file.display())
}

/// The seconds [`writer`] recorded in `path`, if it finished.
pub(crate) fn read_seconds(path: &Path) -> Option<f64> {
    std::fs::read_to_string(path).ok()?.trim().parse::<f64>().ok().map(|ns| ns / 1e9)
}

/// The two flood files in `dir`: `plain_mb` MB of plain lines and `colour_mb` MB of 256-colour
/// cells, LF-only (the pty adds the CRs, as for a real `cat`), from the seeds `seed` and
/// `seed + 1`.
pub(crate) fn flood_files(
    dir: &Path,
    plain_mb: usize,
    colour_mb: usize,
    seed: u64,
) -> Result<(PathBuf, PathBuf), String> {
    let plain = dir.join("plain.txt");
    let mut text = workloads::plain_lines(&mut Rng::new(seed), plain_mb * 1_000_000);
    text.retain(|&b| b != b'\r');
    std::fs::write(&plain, &text).map_err(|e| e.to_string())?;
    let colour = dir.join("colour.txt");
    let mut text = workloads::sgr_256(&mut Rng::new(seed + 1), colour_mb * 1_000_000);
    text.retain(|&b| b != b'\r');
    std::fs::write(&colour, &text).map_err(|e| e.to_string())?;
    Ok((plain, colour))
}

/// The syscons console post's text: `lines` lines of 80 characters, scrolling or with the cursor homed after
/// each screenful of 24. With OPOST the kernel turns \n into \r\n; without it the text carries
/// the \r itself.
pub(crate) fn lines_text(lines: usize, scroll: bool, opost: bool) -> Vec<u8> {
    let line: Vec<u8> = (0..80).map(|i| b'!' + (i % 94) as u8).collect();
    let mut t = Vec::with_capacity(lines * 84);
    for i in 0..lines {
        t.extend_from_slice(&line);
        if !scroll && i % 24 == 23 {
            t.extend_from_slice(b"\x1b[H");
        } else if opost {
            t.push(b'\n');
        } else {
            t.extend_from_slice(b"\r\n");
        }
    }
    t
}
