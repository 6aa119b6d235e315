//! The command line as a user meets it: replay's dump format, argument errors as the parser
//! prints them and other errors in one line, both with exit status 2, the documented maxima of
//! sizes, and `serial --fastport` on a pty standing in for a serial cable.

#[path = "common/scratch.rs"]
mod scratch;
use scratch::Scratch;
use std::process::Command;

const BLITTY: &str = env!("CARGO_BIN_EXE_blitty");

fn blitty(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BLITTY).args(args).output().expect("blitty runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn replay_prints_exactly_rows_lines_then_the_cursor() {
    let file = Scratch::new("cli.raw");
    std::fs::write(&file, "hello   \r\n\x1b[31m字e\u{301}\x1b(0lq\x1b(B   \r\nabcdefghij".as_bytes())
        .expect("temp file");
    let (code, out, err) = blitty(&["replay", file.to_str().expect("utf-8 path"), "--size", "10x4"]);
    assert_eq!(code, 0, "{err}");
    // Trailing spaces removed, the wide character once, the combining mark after its base,
    // DEC graphics as Unicode; a cursor waiting to wrap is in the last column.
    assert_eq!(out, "hello\n字e\u{301}┌─\nabcdefghij\n\ncursor: 2 9\n");
}

#[test]
fn replay_dump_styled_prints_each_row_with_its_sgr() {
    let file = Scratch::new("cli-styled.raw");
    let input = "a\x1b[1;31mb\x1b[0;7;48;5;200m字\x1b[m \x1b[44m \x1b[m\r\n\x1b#6\x1b[38;2;1;2;3mwide\r\n\x1b[4:3mx";
    std::fs::write(&file, input.as_bytes()).expect("temp file");
    let (code, out, err) =
        blitty(&["replay", file.to_str().expect("utf-8 path"), "--size", "10x4", "--dump", "styled"]);
    assert_eq!(code, 0, "{err}");
    // Each row from the default pen back to it; the wide character once; a blank with a
    // background colour kept, a plain one at the end dropped; a double-width row's size first.
    assert_eq!(
        out,
        "a\x1b[1;31mb\x1b[0;7;48;5;200m字\x1b[0m \x1b[44m \x1b[49m\n\x1b#6\x1b[38;2;1;2;3mwide\x1b[39m\n\x1b[4;4:3;38;2;1;2;3mx\x1b[0m\n\ncursor: 2 1\n"
    );
}

#[test]
fn replay_dump_replies_prints_only_what_the_terminal_answered() {
    let file = Scratch::new("cli-replies.raw");
    std::fs::write(&file, b"\x1b[5nab\x1b[6n\x1b[?15n\x1b[4h\x1b[4$p\x1bP$qm\x1b\\").expect("temp file");
    let path = file.to_str().expect("utf-8 path");
    for chunk in ["65536", "1"] {
        let (code, out, err) = blitty(&["replay", path, "--dump", "replies", "--chunk", chunk]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, "\x1b[0n\x1b[1;3R\x1b[?13n\x1b[4;1$y\x1bP1$r0m\x1b\\", "in chunks of {chunk}");
    }
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    // Errors past the argument parser: one line naming the file or device.
    for args in [
        &["replay", "/nonexistent/file"][..],
        &["serial", "/etc/hostname"],
        &["serial", "/dev/null", "--map", "ICRNL,BOGUS"],
        &["serial", "/nonexistent/ttyUSB9"],
    ] {
        let (code, _, err) = blitty(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("blitty: "), "{args:?}: {err}");
    }
}

#[test]
fn argument_errors_are_printed_as_the_parser_says_them_with_status_2() {
    // The whole message: what is wrong, the usage line where the parser gives one (a missing or
    // unexpected argument, an unknown subcommand), and the hint to --help.
    for (args, says, usage) in [
        (&["serial"][..], "the following required arguments were not provided", true),
        (&["run", "vim"], "unexpected argument 'vim'", true),
        (&["no-such-command"], "unrecognized subcommand 'no-such-command'", true),
        (&["replay", "/etc/hostname", "--size", "80y24"], "invalid value '80y24' for '--size <SIZE>'", false),
        (&["replay", "/etc/hostname", "--size", "0x24"], "1 to 2048 columns and 1 to 1024 rows", false),
        (&["replay", "/etc/hostname", "--chunk", "0"], "invalid value '0' for '--chunk <CHUNK>'", false),
        (&["serial", "/dev/null", "--databits", "9"], "--databits <DATABITS>", false),
        (&["serial", "/dev/null", "--baud", "0"], "--baud <BAUD>", false),
        (&["run", "--hz", "0"], "--hz <HZ>", false),
        (&["run", "--prefix", "x"], "'x' is not a control key", false),
        (&["serial", "/dev/null", "--prefix", "C-c"], "is a key programs need", false),
        (&["serial", "/dev/null", "--parity", "mark"], "[possible values: none, odd, even]", false),
    ] {
        let (code, _, err) = blitty(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(says), "{args:?}: {err}");
        if args == ["run", "vim"] {
            assert!(err.contains("tip: the program to run goes after '--': blitty run -- vim"), "{err}");
        }
        assert_eq!(err.contains("Usage: blitty"), usage, "{args:?}: {err}");
        assert!(err.contains("For more information, try '--help'."), "{args:?}: {err}");
    }
}

#[test]
fn sizes_past_their_documented_maximum_are_refused() {
    // Accepted and aborted or took gigabytes before: --scrollback 99999999999 (run, serial,
    // replay), --size 65534x65534, --size 65534x1.
    for args in [
        &["replay", "/etc/hostname", "--scrollback", "99999999999"][..],
        &["replay", "/etc/hostname", "--scrollback", "100001"],
        &["replay", "/etc/hostname", "--size", "65534x65534"],
        &["replay", "/etc/hostname", "--size", "65534x1"],
        &["replay", "/etc/hostname", "--size", "2049x24"],
        &["replay", "/etc/hostname", "--size", "80x1025"],
        &["run", "--scrollback", "99999999999", "--", "true"],
        &["serial", "/dev/null", "--scrollback", "99999999999"],
    ] {
        let (code, _, err) = blitty(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("error: invalid value"), "{args:?}: {err}");
    }
    // The maxima themselves work, and the help says them.
    let file = Scratch::new("cli-max.raw");
    std::fs::write(&file, "x\u{17D8}\n".repeat(3000)).expect("temp file");
    let path = file.to_str().expect("utf-8 path");
    let (code, out, err) = blitty(&["replay", path, "--size", "2048x1024", "--scrollback", "100000", "--dump", "none"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    let (_, help, _) = blitty(&["replay", "--help"]);
    assert!(help.contains("at most 2048x1024") && help.contains("at most 100000"), "{help}");
    for sub in ["run", "serial"] {
        let (_, help, _) = blitty(&[sub, "--help"]);
        assert!(help.contains("at most 100000"), "{sub}: {help}");
    }
}

#[test]
fn replay_survives_every_width_class_at_the_smallest_sizes() {
    // `printf '\xe1\x9f\x98\n' > k; blitty replay k --size 1x1 --scrollback 0` panicked.
    let file = Scratch::new("cli-khmer.raw");
    std::fs::write(&file, "\u{17D8}\n字e\u{301}😀\u{17D8}\n".repeat(20)).expect("temp file");
    let path = file.to_str().expect("utf-8 path");
    for size in ["1x1", "2x1", "1x2", "2x2"] {
        for scrollback in ["0", "5"] {
            let (code, out, err) = blitty(&["replay", path, "--size", size, "--scrollback", scrollback]);
            assert_eq!(code, 0, "{size} {scrollback}: {err}");
            assert!(out.ends_with('\n') && err.is_empty(), "{size}: {out}{err}");
        }
    }
}

#[test]
fn serial_fastport_conditions_a_line_and_prints_the_stty_equivalent() {
    let (_master, slave) = blitty_os::pty::pair().expect("a pty");
    let slave = slave.display().to_string();
    let (code, out, err) = blitty(&["serial", &slave, "--fastport"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), format!("stty -F {slave} -opost -icanon -isig -icrnl -echo -onlcr min 255 time 5"));
    // The line really is conditioned: check it from a second open of the same device.
    let fd = rustix::fs::open(
        slave.as_str(),
        rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NOCTTY,
        rustix::fs::Mode::empty(),
    )
    .expect("reopen");
    let t = rustix::termios::tcgetattr(&fd).expect("tcgetattr");
    assert!(!t.local_modes.contains(rustix::termios::LocalModes::ICANON));
    assert_eq!(t.special_codes[rustix::termios::SpecialCodeIndex::VMIN], 255);
}

#[test]
fn serial_without_a_terminal_says_so_after_checking_the_device() {
    let (_master, slave) = blitty_os::pty::pair().expect("a pty");
    let slave = slave.display().to_string();
    let out = Command::new(BLITTY).args(["serial", &slave]).stdin(std::process::Stdio::null()).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        "blitty: standard input and output must be a terminal: blitty serial shows the line in your terminal"
    );
}

#[test]
fn the_version_names_the_commit() {
    let (code, out, _) = blitty(&["--version"]);
    assert_eq!(code, 0);
    let out = out.trim();
    let commit = out
        .strip_prefix(&format!("blitty {} (commit ", env!("CARGO_PKG_VERSION")))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{out}"));
    let hash = commit.strip_suffix("-modified").unwrap_or(commit);
    assert!(hash == "unknown" || (hash.len() == 12 && hash.chars().all(|c| c.is_ascii_hexdigit())), "{out}");
}

#[test]
fn completions_are_scripts_each_shell_accepts() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = blitty(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        for word in ["run", "serial", "replay", "bench", "scrollback"] {
            assert!(out.contains(word), "{shell} completion lacks {word}");
        }
        // The shells that are installed check the syntax (bash always is).
        let check = match shell {
            "bash" => Some(("bash", "-n")),
            "zsh" => Some(("zsh", "-n")),
            "fish" => Some(("fish", "--no-execute")),
            _ => None,
        };
        if let Some((program, flag)) = check {
            let file = Scratch::new(&format!("completion.{shell}"));
            std::fs::write(&file, &out).expect("temp file");
            match Command::new(program).arg(flag).arg(&file).output() {
                Ok(o) => assert!(o.status.success(), "{shell}: {}", String::from_utf8_lossy(&o.stderr)),
                Err(_) => assert_ne!(shell, "bash", "bash must be installed"),
            }
        }
    }
    let (code, _, err) = blitty(&["completions", "tcsh"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn the_manual_page_is_roff_for_every_subcommand() {
    let (code, out, err) = blitty(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(".TH blitty 1") && out.contains(".SH NAME") && out.contains("blitty\\-run"), "{out}");
    let dir = Scratch::new("man");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (code, _, err) = blitty(&["man", "--dir", dir.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    for page in ["blitty.1", "blitty-run.1", "blitty-serial.1", "blitty-replay.1", "blitty-bench.1"] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.starts_with(".ie") || text.contains(".TH"), "{page}");
    }
    // man renders it, where man is installed.
    if let Ok(o) = Command::new("man").arg("-l").arg(dir.join("blitty-run.1")).env("MANPAGER", "cat").output() {
        if o.status.success() {
            assert!(String::from_utf8_lossy(&o.stdout).contains("scrollback"));
        }
    }
    let (code, _, err) = blitty(&["man", "--dir", "/nonexistent/dir"]);
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
}

#[test]
fn the_product_links_only_the_c_library() {
    // No libvterm (a peer engine of the lab), nothing but the C library's own objects.
    let out = Command::new("ldd").arg(BLITTY).output().expect("ldd runs");
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines() {
        let lib = line.split_whitespace().next().unwrap_or("");
        let libc_own = [
            "linux-vdso.so",
            "libc.so",
            "libm.so",
            "libgcc_s.so",
            "ld-linux",
            "libpthread.so",
            "libdl.so",
            "librt.so",
            "libutil.so",
        ];
        assert!(libc_own.iter().any(|l| lib.contains(l)), "blitty links {line}");
    }
    assert!(!text.contains("vterm"), "{text}");
}

#[test]
fn bench_without_the_lab_says_how_to_get_it() {
    // A copy of blitty alone in a directory, with no blitty-lab on PATH.
    let dir = Scratch::new("alone");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let alone = dir.join("blitty");
    // A hard link: a copy would be open for writing for a moment, and a process forked by a
    // test running alongside could hold that descriptor while this one executes the file
    // (ETXTBSY). Across filesystems, a copy, and executing it is retried while it is busy.
    if std::fs::hard_link(BLITTY, &alone).is_err() {
        std::fs::copy(BLITTY, &alone).expect("copy");
    }
    let run = || Command::new(&alone).args(["bench", "--quick"]).env("PATH", "/usr/bin:/bin").output();
    let mut out = run();
    for _ in 0..50 {
        match &out {
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                out = run();
            }
            _ => break,
        }
    }
    let out = out.expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("blitty: blitty bench needs blitty-lab") && err.contains("cargo build --release -p blitty-lab"),
        "{err}"
    );
}

#[test]
fn bench_runs_the_lab_beside_blitty() {
    // Where cargo built the lab beside blitty (the workspace's test run builds both).
    let lab = std::path::Path::new(BLITTY).with_file_name("blitty-lab");
    if !lab.is_file() {
        eprintln!("skipped: blitty-lab is not built beside {BLITTY} (cargo test --workspace builds it)");
        return;
    }
    let (code, _, err) = blitty(&["bench", "--targets", "nonsense"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("invalid value 'nonsense' for '--targets"), "{err}");
    let (code, out, _) = blitty(&["bench", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("ports") && out.contains("--quick"), "{out}");
}

#[test]
fn a_bad_config_file_is_one_line_naming_the_file_the_line_and_the_key() {
    let dir = std::env::temp_dir().join(format!("blitty-cli-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "hz = 60\n[serial]\nparity = \"mark\"\n").expect("file");
    let path = bad.display().to_string();
    for args in [&["run", "--config", &path, "--", "true"][..], &["serial", "/dev/null", "--config", &path]] {
        let (code, _, err) = blitty(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(
            err.trim_end(),
            format!("blitty: config file {path}: line 3: serial.parity: 'mark' is not one of none, odd, even"),
            "{args:?}"
        );
    }
    let missing = dir.join("missing.toml").display().to_string();
    let (code, _, err) = blitty(&["run", "--config", &missing, "--", "true"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("blitty: cannot read the config file {missing}")) && err.lines().count() == 1,
        "{err}"
    );
    // The default file is looked for under XDG_CONFIG_HOME: a bad one there is said the same way.
    std::fs::create_dir_all(dir.join("blitty")).expect("dir");
    std::fs::write(dir.join("blitty/config.toml"), "prefix = \"q\"\n").expect("file");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blitty"))
        .args(["run", "--", "true"])
        .env("XDG_CONFIG_HOME", &dir)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("config.toml: line 1: prefix: 'q' is not a control key"), "{err}");
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn replay_draws_the_screen_into_a_png_and_names_what_is_wrong() {
    let dir = std::env::temp_dir().join(format!("blitty-cli-png-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.txt");
    std::fs::write(&input, "\x1b[1;32mgreen\x1b[0m \u{2500}\u{2500}\r\n").unwrap();
    let out = dir.join("out.png");
    let (code, _, err) = blitty(&[
        "replay",
        input.to_str().unwrap(),
        "--size",
        "20x3",
        "--dump",
        "none",
        "--png",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&out).expect("the PNG");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let (code, _, err) =
        blitty(&["replay", input.to_str().unwrap(), "--png", out.to_str().unwrap(), "--font-size", "500"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected a size from 1 to 200 points"), "{err}");
    let (code, _, err) = blitty(&["replay", input.to_str().unwrap(), "--png", "/nonexistent/dir/x.png"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("blitty: cannot create /nonexistent/dir/x.png"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn console_sizes_past_their_maximum_and_a_missing_terminal_are_refused() {
    for size in ["0x10", "16385x10", "10", "axb"] {
        let (code, _, err) = blitty(&["console", "--fb", "/tmp/x", "--fb-size", size]);
        assert_eq!(code, 2, "{size}");
        assert!(err.contains("expected WIDTHxHEIGHT in pixels, each 1 to 16384"), "{err}");
    }
    // No terminal for the keys (the tests run without one): one line, status 2.
    let (code, _, err) = blitty(&["console", "--fb", "/tmp/blitty-cli-fb", "--fb-size", "64x64"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("must be a terminal"), "{err}");
}

#[test]
fn replay_refuses_a_png_past_the_largest_image_at_once_and_says_a_failed_write() {
    // 2048x1024 cells at 200 points and scale 8 asked for 26 TB and aborted; 30x20 took 74 s
    // and 13 GB. The font size times the scale is bounded, and the image to 16384 pixels a
    // side, both before the stream is read or anything drawn.
    let file = Scratch::new("cli-png-max.raw");
    std::fs::write(&file, "x\r\n".repeat(100)).expect("temp file");
    let path = file.to_str().expect("utf-8 path");
    let out = Scratch::new("cli-png-max.png");
    let png = out.to_str().expect("utf-8 path");
    let (scaled, side) = ("the font size times the scale is at most 400 points", "larger than 16384x16384 pixels");
    for (args, says) in [
        (&["--size", "2048x1024", "--font-size", "200", "--scale", "8"][..], scaled),
        (&["--size", "30x20", "--font-size", "200", "--scale", "8"], scaled),
        (
            &["--size", "2048x1024", "--font-size", "200"],
            "larger than 16384x16384 pixels; at this font size at most 101x52",
        ),
        (&["--size", "102x52", "--font-size", "200"], side),
        (&["--size", "2048x1024", "--font-size", "50", "--scale", "8"], side),
    ] {
        let start = std::time::Instant::now();
        let (code, _, err) = blitty(&[&["replay", path, "--png", png][..], args].concat());
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("blitty: ") && err.contains(says), "{args:?}: {err}");
        // Refused, not tried: well under the seconds drawing it would take.
        assert!(secs < 10.0, "{args:?}: {secs:.1} s");
        assert!(!out.exists(), "{args:?}: a PNG was written");
    }
    // Wherever a font size is taken, the same bound.
    let (code, _, err) = blitty(&["window", "--font-size", "200", "--scale", "8", "--", "true"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(scaled), "{err}");
    // A PNG that cannot be written whole is said, as standard output that cannot be.
    let (code, _, err) = blitty(&["replay", path, "--dump", "none", "--png", "/dev/full"]);
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
    assert!(err.starts_with("blitty: cannot write /dev/full: "), "{err}");
    let to_full = Command::new(BLITTY)
        .args(["replay", path])
        .stdout(std::fs::File::create("/dev/full").expect("/dev/full"))
        .output()
        .expect("blitty runs");
    let err = String::from_utf8_lossy(&to_full.stderr);
    assert_eq!(to_full.status.code(), Some(2), "{err}");
    assert!(err.starts_with("blitty: cannot write to standard output: "), "{err}");
}

#[test]
fn completions_and_the_manual_end_quietly_in_a_pipeline_whose_reader_stops_early() {
    // As typed in a shell: the reader takes what it wants and goes; with pipefail the status is
    // blitty's own, which must be 0 with nothing on standard error.
    for line in [
        "\"$0\" completions zsh | true",
        "\"$0\" completions bash | head -1",
        "\"$0\" man | head -1",
        "\"$0\" man config | head -1",
    ] {
        let out = Command::new("bash")
            .args(["-c", &format!("set -o pipefail; {line} >/dev/null"), BLITTY])
            .output()
            .expect("bash runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{line}: {err}");
        assert!(err.is_empty(), "{line}: {err}");
    }
}
