//! What every experiment's report shares: the context it runs in, the section it returns, the
//! machine and terminal versions its header names, and the files the report is written to.

use std::path::PathBuf;

pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// What an experiment needs to know to run and report.
pub struct Context {
    pub quick: bool,
    /// Where charts go (the Markdown and JSON are written by [`Reports`]).
    pub out: PathBuf,
    /// `--targets` keywords (empty: all).
    pub targets: Vec<String>,
    /// The product (`blitty run` targets) and this lab (its C probes).
    pub blitty: PathBuf,
    pub lab: PathBuf,
    /// The command line, quoted in every report.
    pub command: String,
}

/// One experiment's report: its Markdown (tables and the sentences computed from them) and JSON.
pub struct Section {
    pub name: &'static str,
    pub markdown: String,
    pub json: serde_json::Value,
}

/// The report being assembled: each experiment's Markdown and JSON go to files in `out` and
/// into the combined report printed at the end.
pub struct Reports {
    pub out: PathBuf,
    pub markdown: String,
    pub json: serde_json::Map<String, serde_json::Value>,
}

impl Reports {
    pub fn add(&mut self, section: Section) -> Result<(), Error> {
        let Section { name, markdown: md, json } = section;
        std::fs::write(self.out.join(format!("{name}.md")), &md)?;
        std::fs::write(self.out.join(format!("{name}.json")), serde_json::to_string_pretty(&json)?)?;
        if !self.markdown.is_empty() {
            self.markdown.push('\n');
        }
        self.markdown.push_str(&md);
        self.json.insert(name.into(), json);
        Ok(())
    }
}

/// Versions of the host terminals and multiplexers measured, or "not installed".
pub fn versions() -> String {
    let version = |cmd: &str, args: &[&str]| -> String {
        match std::process::Command::new(cmd).args(args).output() {
            Ok(o) => {
                let text = if o.stdout.is_empty() { o.stderr } else { o.stdout };
                String::from_utf8_lossy(&text).lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()
            }
            Err(_) => format!("{cmd} not installed"),
        }
    };
    format!("{}; {}; {}", version("tmux", &["-V"]), version("screen", &["-v"]), version("xterm", &["-version"]))
}

/// The machine: CPU model, cores and kernel.
pub fn machine() -> String {
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    format!("{cpu}, {cores} cores, Linux {}", kernel.trim())
}

/// A report section's heading, then the command, the machine and (with `terminals`) the
/// versions of the terminals measured.
pub fn header(title: &str, command: &str, terminals: bool) -> String {
    let mut s = format!("## {title}\n\ncommand: `{command}`  \nmachine: {}  \n", machine());
    if terminals {
        s.push_str(&format!("terminals: {}  \n", versions()));
    }
    s
}
