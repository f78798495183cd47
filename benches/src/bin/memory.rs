//! Peak memory of one snapshot, per page: every real page of the shared
//! corpus, and generated pages of several sizes.
//!
//! The workspace forbids unsafe code, so there is no counting allocator;
//! the kernel counts instead. Each page is measured in a child process of
//! this binary (`--one PATH` or `--generate KIND SIZE`): the child warms up
//! (a small snapshot, so code pages and the lazily built tables — the UA
//! sheet, o200k's split pattern — are resident already), loads
//! the page, resets the peak (`5` into `/proc/self/clear_refs`), reads
//! `VmRSS`, snapshots, and reads `VmHWM`. Peak minus start is the memory
//! the snapshot took while it ran, its outputs included. Memory the
//! allocator kept from the warm-up and reused is not counted, so small
//! pages read a little low.
//!
//! Prints the median, p90 and max over the corpus pages, MB per MB of
//! HTML, the heaviest pages, and each generated page.
//!
//! Run: `cargo run --release -p whittle-benches --bin memory [-- --pages N]
//! [--generated realistic:1m,realistic:5m,realistic:20m,table:5m]`.

use std::path::Path;
use std::process::Command;

use whittle::corpus::parse_size;
use whittle::memory::status_kib;
use whittle_benches::{median, percentile};
use whittle_corpus::generate::{Kind, generate, realistic_page};
use whittle_engine::{RefTable, snapshot};

/// The child: measures one page and prints `html_bytes start_kb peak_kb
/// kept_kb reset`: the resident size before the snapshot, its peak while
/// the snapshot ran, the resident size with the snapshot's outputs held
/// after it, and 0 for `reset` when the peak could not be reset (then it
/// may predate the snapshot).
fn measure(html: Vec<u8>) {
    let warm = realistic_page(30_000);
    drop(snapshot(warm.as_bytes(), &Default::default(), &mut RefTable::new()));
    whittle_engine::fold::tokens::exact_count("warm up");
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let start = status_kib("VmRSS:").unwrap_or(0);
    let snap = snapshot(&html, &Default::default(), &mut RefTable::new());
    let peak = status_kib("VmHWM:").unwrap_or(0);
    let kept = status_kib("VmRSS:").unwrap_or(0);
    std::hint::black_box(&snap);
    println!("{} {start} {peak} {kept} {}", html.len(), u8::from(reset));
}

/// One page's figures.
struct Measured {
    name: String,
    html: u64,
    /// Peak minus start, in bytes.
    taken: u64,
    /// What the snapshot's outputs hold after it (resident minus start),
    /// in bytes: the rest of the peak was transient.
    kept: u64,
}

/// Runs a child with `args` and reads its line.
fn child(name: String, args: &[&str]) -> Result<Measured, String> {
    let exe = std::env::current_exe().map_err(|e| format!("this binary: {e}"))?;
    let out = Command::new(exe).args(args).output().map_err(|e| format!("{name}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let fields: Vec<u64> = text.split_whitespace().filter_map(|f| f.parse().ok()).collect();
    match fields[..] {
        [html, start, peak, kept, reset] if out.status.success() => {
            if reset == 0 {
                eprintln!("{name}: the peak could not be reset (/proc/self/clear_refs): it may predate the snapshot");
            }
            Ok(Measured { name, html, taken: peak.saturating_sub(start) * 1024, kept: kept.saturating_sub(start) * 1024 })
        }
        _ => Err(format!("{name}: the child failed: {}{}", text.trim(), String::from_utf8_lossy(&out.stderr).trim())),
    }
}

/// `--pages N` (corpus pages measured, default all) and `--generated
/// KIND:SIZE,…` (default realistic pages of 1, 5 and 20 MB).
fn parse_args(args: &[String]) -> Result<(usize, Vec<(Kind, usize)>), String> {
    let mut limit = usize::MAX;
    let mut generated = vec![(Kind::Realistic, 1_000_000), (Kind::Realistic, 5_000_000), (Kind::Realistic, 20_000_000)];
    for pair in args.chunks(2) {
        match pair {
            [flag, n] if flag == "--pages" => limit = n.parse().map_err(|_| format!("not a count: {n}"))?,
            [flag, list] if flag == "--generated" => {
                generated = list
                    .split(',')
                    .map(|item| {
                        let (kind, size) = item.split_once(':').ok_or_else(|| format!("{item}: write KIND:SIZE"))?;
                        Ok((kind.parse::<Kind>().map_err(|e| e.to_string())?, parse_size(size)?))
                    })
                    .collect::<Result<_, String>>()?;
            }
            _ => return Err("the options are --pages N and --generated KIND:SIZE,… (e.g. realistic:5m)".into()),
        }
    }
    Ok((limit, generated))
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--one", path] => match whittle_corpus::load(Path::new(path)) {
            Ok(bytes) => return measure(bytes),
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        },
        ["--generate", kind, size] => {
            let page = kind.parse::<Kind>().map_err(|e| e.to_string()).and_then(|k| {
                let size = parse_size(size)?;
                generate(k, size).map_err(|e| e.to_string())
            });
            match page {
                Ok(page) => return measure(page.into_bytes()),
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(1);
                }
            }
        }
        _ => {}
    }
    let (limit, generated) = match parse_args(&args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("memory: {e}");
            std::process::exit(2);
        }
    };

    let mut pages = Vec::new();
    if whittle_corpus::shared_dir().is_some() {
        for path in whittle_corpus::real_pages().into_iter().take(limit) {
            let name = whittle_corpus::short_name(&path);
            match child(name, &["--one", &path.to_string_lossy()]) {
                Ok(m) => pages.push(m),
                Err(e) => eprintln!("{e}"),
            }
        }
    } else {
        println!("memory: corpus pages skipped: {}", whittle_corpus::shared_missing_reason());
    }
    if !pages.is_empty() {
        let mut taken: Vec<f64> = pages.iter().map(|m| mb(m.taken)).collect();
        taken.sort_by(f64::total_cmp);
        let mut ratios: Vec<f64> = pages.iter().map(|m| m.taken as f64 / m.html.max(1) as f64).collect();
        ratios.sort_by(f64::total_cmp);
        let (html, all): (u64, u64) = pages.iter().fold((0, 0), |(h, t), m| (h + m.html, t + m.taken));
        let kept: Vec<f64> = pages.iter().map(|m| mb(m.kept)).collect();
        println!("corpus pages: {} ({:.1} MB of HTML), peak memory of one snapshot above the process's start:", pages.len(), mb(html));
        println!(
            "  median {:.1} MB, p90 {:.1} MB, max {:.1} MB",
            median(taken.clone()),
            percentile(&taken, 0.9),
            taken.last().copied().unwrap_or(0.0)
        );
        println!("  of which held by the snapshot's outputs after it: median {:.1} MB (the rest was transient)", median(kept));
        println!(
            "  MB per MB of HTML: per page median {:.1}, p90 {:.1}; all pages {:.1}",
            median(ratios.clone()),
            percentile(&ratios, 0.9),
            all as f64 / html.max(1) as f64
        );
        pages.sort_by_key(|m| std::cmp::Reverse(m.taken));
        println!("  heaviest:");
        for m in pages.iter().take(8) {
            println!(
                "    {:.1} MB ({:.1} MB held after) for {:.2} MB of HTML ({:.1}×) {}",
                mb(m.taken),
                mb(m.kept),
                mb(m.html),
                m.taken as f64 / m.html.max(1) as f64,
                m.name
            );
        }
    }
    for (kind, bytes) in generated {
        let name = format!("{kind} {bytes}");
        match child(name.clone(), &["--generate", kind.name(), &bytes.to_string()]) {
            Ok(m) => println!(
                "generated {kind}, {:.2} MB of HTML: peak {:.1} MB ({:.1} MB per MB), held after {:.1} MB",
                mb(m.html),
                mb(m.taken),
                m.taken as f64 / m.html.max(1) as f64,
                mb(m.kept)
            ),
            Err(e) => eprintln!("{e}"),
        }
    }
}
