//! The manual pages as `blitty man --dir` writes them: every command of the front ends' key
//! tables (`SESSION_COMMANDS`, `SERIAL_COMMANDS`, `RUN_COMMANDS`) and every row the prefix's help
//! adds to them is on the pages of the commands that take it, every key of the config file
//! (`config::KEYS`) on blitty-config(5) and on the page of each command that reads it; man and
//! groff render the pages without a warning where they are installed. And bash's completion
//! offers the sessions `blitty ls` lists after `attach`, `kill` and `--attach`.

mod common;

// The config file's key table, from the file that parses the config (its own tests run here too).
#[allow(dead_code)]
#[path = "../src/config.rs"]
mod config;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use blitty_mux::keys::Prefix;
use blitty_mux::ui::{Command as UiCommand, Place, Ui};
use common::scratch::Scratch;
use common::server::{Server, BLITTY};

/// Text as the pages write it in roff.
fn roff(s: &str) -> String {
    s.replace('\\', "\\e").replace('-', "\\-")
}

/// Every page `blitty man --dir DIR/man1` writes, by file name (blitty-config.5 from DIR/man5).
fn pages(dir: &Path) -> BTreeMap<String, String> {
    let man1 = dir.join("man1");
    std::fs::create_dir_all(&man1).expect("temp dir");
    let out = Command::new(BLITTY).args(["man", "--dir"]).arg(&man1).output().expect("blitty runs");
    assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut pages = BTreeMap::new();
    for sub in ["man1", "man5"] {
        for entry in std::fs::read_dir(dir.join(sub)).expect("the pages' directory") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().expect("a name").to_string_lossy().into_owned();
            pages.insert(name, std::fs::read_to_string(&path).expect("a page"));
        }
    }
    pages
}

/// The rows the prefix's help draws for `table` (past its title): (keys, what).
fn help_rows<A: Copy>(table: &[UiCommand<A>], target: &'static str) -> Vec<(String, String)> {
    let ui: Ui<A> = Ui::new(Prefix::default(), Place::Top, target);
    ui.help_rows(table)[1..]
        .iter()
        .map(|row| {
            let (keys, what) = row.trim().split_once("  ").unwrap_or_else(|| panic!("a help row: {row:?}"));
            (keys.trim().to_string(), what.trim().to_string())
        })
        .collect()
}

/// Checks that `page` names every command of `table` (its shown keys and its help) and every
/// row the help adds.
fn check_table<A: Copy>(pages: &BTreeMap<String, String>, page: &str, table: &[UiCommand<A>], target: &'static str) {
    let text = pages.get(page).unwrap_or_else(|| panic!("no {page}"));
    let mut listed = 0;
    for (i, c) in table.iter().enumerate() {
        if c.shown.is_empty() {
            // Listed with the entry before it, as the help lists it.
            assert!(i > 0, "{page}: the table's first entry shows nothing");
            continue;
        }
        listed += 1;
        assert!(text.contains(&roff(c.shown)), "{page} lacks the keys {:?}", c.shown);
        assert!(text.contains(&roff(c.help)), "{page} lacks {:?} ({})", c.help, c.shown);
    }
    let rows = help_rows(table, target);
    assert_eq!(rows.len(), listed + 4, "{page}: the table's rows, the scrollback, Up, ?, the prefix");
    for (keys, what) in &rows[listed..] {
        assert!(text.contains(&roff(keys)), "{page} lacks the keys {keys:?}");
        assert!(text.contains(&roff(what)), "{page} lacks {what:?} ({keys})");
    }
    for words in ["The scrollback mode", "search towards the newest line", "v, V", "q, Escape"] {
        assert!(text.contains(&roff(words)), "{page} lacks the scrollback mode's {words:?}");
    }
}

#[test]
fn every_key_table_and_every_config_key_is_on_its_pages() {
    let dir = Scratch::new("manual");
    let pages = pages(&dir);
    for name in ["blitty.1", "blitty-run.1", "blitty-serial.1", "blitty-new.1", "blitty-attach.1", "blitty-console.1"]
        .iter()
        .chain(&["blitty-window.1", "blitty-ls.1", "blitty-kill.1", "blitty-replay.1", "blitty-config.5"])
    {
        let text = pages.get(*name).unwrap_or_else(|| panic!("no {name} among {:?}", pages.keys()));
        let (page, section) = name.rsplit_once('.').expect("a section");
        assert!(text.starts_with(&format!(".TH {page} {section} ")), "{name}");
        assert!(text.contains(".SH \"SEE ALSO\""), "{name}");
    }
    check_table(&pages, "blitty-run.1", blitty_mux::run::RUN_COMMANDS, "the program");
    check_table(&pages, "blitty-serial.1", blitty_mux::serial_console::SERIAL_COMMANDS, "the line");
    for page in ["blitty-new.1", "blitty-attach.1", "blitty-console.1"] {
        check_table(&pages, page, blitty_mux::server::SESSION_COMMANDS, "the program");
    }
    // The window's own keys (crates/window takes them before the program's).
    let window = &pages["blitty-window.1"];
    for key in ["Ctrl-Shift-T", "Ctrl-Shift-C", "Ctrl-Shift-V", "Shift-PageUp", "Shift-Insert", "Alt-1 .. Alt-9"] {
        assert!(window.contains(&roff(key)), "blitty-window.1 lacks {key}");
    }
    for page in ["blitty-run.1", "blitty-serial.1", "blitty-new.1", "blitty-window.1", "blitty.1"] {
        assert!(pages[page].contains(".SH \"EXAMPLES\""), "{page} has no examples");
    }
    // Every key of the config file, on blitty-config(5) with its values and default, and on the
    // page of each command that reads it (the server's on the pages of the commands that start
    // one and of those that show its sessions).
    let config = &pages["blitty-config.5"];
    for key in config::KEYS {
        let name = if key.section.is_empty() { key.key.to_string() } else { format!("{}.{}", key.section, key.key) };
        for what in [name.as_str(), key.kind, key.default, key.meaning] {
            assert!(config.contains(&roff(what)), "blitty-config.5 lacks {what:?} of {name}");
        }
        for reader in key.read_by {
            let readers: &[&str] = match *reader {
                "server" => &["new", "console", "attach", "window"],
                _ => std::slice::from_ref(reader),
            };
            for r in readers {
                let page = format!("blitty-{r}.1");
                assert!(
                    pages[&page].contains(&format!("\\fB{}\\fR", roff(&name))),
                    "{page} lacks the config key {name}"
                );
            }
        }
    }
    // A page of section 5 goes beside man1; elsewhere, into the directory itself.
    let flat = Scratch::new("manual-flat");
    std::fs::create_dir_all(&flat).expect("temp dir");
    let out = Command::new(BLITTY).args(["man", "--dir"]).arg(flat.path()).output().expect("blitty runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(flat.join("blitty-config.5").is_file() && flat.join("blitty-run.1").is_file());
}

#[test]
fn each_page_is_printed_by_its_name() {
    for (name, head) in [
        (None, ".TH blitty 1 "),
        (Some("run"), ".TH blitty-run 1 "),
        (Some("blitty-serial"), ".TH blitty-serial 1 "),
        (Some("config"), ".TH blitty-config 5 "),
    ] {
        let out = Command::new(BLITTY).arg("man").args(name).output().expect("blitty runs");
        assert!(out.status.success(), "{name:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).starts_with(head), "{name:?}");
    }
    let out = Command::new(BLITTY).args(["man", "nonsense"]).output().expect("blitty runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no manual page nonsense") && err.contains("config"), "{err}");
}

#[test]
fn man_and_groff_render_every_page_without_a_warning() {
    let dir = Scratch::new("manual-render");
    let pages = pages(&dir);
    let groff = Command::new("groff").arg("--version").output().is_ok_and(|o| o.status.success());
    let man = Command::new("man").arg("--version").output().is_ok_and(|o| o.status.success());
    if !groff && !man {
        eprintln!("skipped: neither man nor groff is installed (apt-get install man-db)");
        return;
    }
    for name in pages.keys() {
        let section = if name.ends_with(".5") { "man5" } else { "man1" };
        let path = dir.join(section).join(name);
        if groff {
            // -ww: every warning; -z: no output, only the checks.
            let out = Command::new("groff").args(["-man", "-Tutf8", "-ww", "-z"]).arg(&path).output().expect("groff");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success() && err.is_empty(), "{name}: {err}");
        }
        if man {
            let out = Command::new("man")
                .arg("-l")
                .arg(&path)
                .env("MANPAGER", "cat")
                .env("MANWIDTH", "80")
                .env("LC_ALL", "C.UTF-8")
                .output()
                .expect("man");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
            for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "SEE ALSO"] {
                assert!(text.lines().any(|l| l == heading), "{name}: no {heading} in\n{text}");
            }
        }
    }
    if man {
        let out = Command::new("man")
            .arg("-l")
            .arg(dir.join("man5/blitty-config.5"))
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "200")
            .output()
            .expect("man");
        let text = String::from_utf8_lossy(&out.stdout);
        for words in ["server.socket_dir", "serial.profiles.NAME.device", "Default: 10000."] {
            assert!(text.contains(words), "blitty-config(5) as man shows it lacks {words:?}:\n{text}");
        }
    } else {
        eprintln!("man is not installed: the pages were checked with groff only");
    }
}

/// What bash's completion of `words` (the last one being completed) offers.
fn bash_complete(script: &Path, words: &[&str], env: &[(&str, &Path)]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "source '{}'\n\
         f=$(complete -p blitty | sed -n 's/.*-F \\([^ ]*\\) .*/\\1/p')\n\
         COMP_WORDS=({})\n\
         COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))\n\
         COMP_LINE=\"${{COMP_WORDS[*]}}\"\n\
         COMP_POINT=${{#COMP_LINE}}\n\
         \"$f\" \"${{COMP_WORDS[0]}}\" \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        quoted.join(" ")
    );
    let mut cmd = Command::new("bash");
    cmd.args(["--norc", "--noprofile", "-c", &program]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("bash runs");
    assert!(out.status.success(), "{words:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().filter(|l| !l.is_empty()).map(str::to_string).collect()
}

#[test]
fn bash_completes_the_names_of_the_sessions_blitty_ls_lists() {
    let s = Server::new("completion");
    s.ok(&["new", "-d", "-s", "comptest", "--", "sleep", "30"]);
    s.ok(&["new", "-d", "-s", "other", "--", "sleep", "30"]);
    assert!(s.wait_ls("other").contains("comptest"));
    let script = Scratch::new("completion.bash");
    let out = Command::new(BLITTY).args(["completions", "bash"]).output().expect("blitty runs");
    assert!(out.status.success());
    std::fs::write(&script, &out.stdout).expect("temp file");
    let env = [("XDG_RUNTIME_DIR", s.dir.path()), ("XDG_CONFIG_HOME", s.dir.path())];
    let both = vec!["comptest".to_string(), "other".to_string()];
    assert_eq!(bash_complete(&script, &[BLITTY, "attach", ""], &env), both);
    assert_eq!(bash_complete(&script, &[BLITTY, "kill", "co"], &env), ["comptest"]);
    assert_eq!(bash_complete(&script, &[BLITTY, "window", "--attach", ""], &env), both);
    assert_eq!(bash_complete(&script, &[BLITTY, "console", "--fb", "x", "--attach", "o"], &env), ["other"]);
    // The session is named: what follows is clap's (its options), not another name.
    let after = bash_complete(&script, &[BLITTY, "attach", "comptest", ""], &env);
    assert!(!after.contains(&"other".to_string()), "{after:?}");
    // Options and other commands are clap's completion.
    assert!(bash_complete(&script, &[BLITTY, "attach", "--"], &env).contains(&"--config".to_string()));
    assert!(bash_complete(&script, &[BLITTY, "at"], &env).contains(&"attach".to_string()));
    // The --config given on the command line names the server: here the only way to it.
    let config = s.dir.join("elsewhere.toml");
    std::fs::write(&config, format!("[server]\nsocket_dir = \"{}\"\n", s.socket_dir().display())).expect("config");
    let away = Scratch::new("completion-away");
    std::fs::create_dir_all(&away).expect("temp dir");
    let env_away = [("XDG_RUNTIME_DIR", away.path()), ("XDG_CONFIG_HOME", away.path())];
    assert!(bash_complete(&script, &[BLITTY, "attach", ""], &env_away).is_empty());
    let config = config.to_str().expect("utf-8");
    assert_eq!(bash_complete(&script, &[BLITTY, "kill", "--config", config, "c"], &env_away), ["comptest"]);
    s.ok(&["kill", "comptest"]);
    s.ok(&["kill", "other"]);
}
