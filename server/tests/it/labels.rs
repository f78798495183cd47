//! The labels of a marked picture read back as their refs: each badge is
//! cropped from the JPEG and read by tesseract (Debian's `tesseract-ocr`;
//! a reading counts when it is exactly the ref's digits), on layouts like
//! the pages people mark: a form, a dense list of links, a grid of small
//! icon buttons, refs at every edge — drawn here from boxes, and (run
//! from the Chromium test) the pages of
//! `corpus/pictures` taken through the `screenshot` tool, where the
//! elements' own text must read as well with the labels as without.
//! Without tesseract the tests say they skipped, unless
//! `WHITTLE_OCR_TESTS=require`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use image::{ImageFormat, Rgb, RgbImage};
use serde_json::json;
use whittle::backend::auto::{AutoBackend, EnginePolicy};
use whittle::backend::cdp::{CdpBackend, ChromiumOptions};
use whittle::picture::{annotate, Annotated, Mark};
use whittle_engine::Rect;

use crate::server::{Reply, Seen, Server};
use crate::session::{call, ok};

fn r(x: f32, y: f32, width: f32, height: f32) -> Rect {
    Rect { x, y, width, height }
}

/// A layout: the marks and the text boxes around them, drawn as grey
/// bars on white so the picture has text-like ink where the text is.
struct Layout {
    name: &'static str,
    width: u32,
    height: u32,
    marks: Vec<Mark>,
    texts: Vec<Rect>,
}

fn layouts() -> Vec<Layout> {
    let mut out = Vec::new();
    // A checkout form: a label above each field, a button at the end.
    let (mut marks, mut texts) = (Vec::new(), Vec::new());
    for i in 0..9u32 {
        let y = 30.0 + i as f32 * 64.0;
        texts.push(r(40.0, y, 140.0, 16.0));
        marks.push(Mark { number: i + 1, rect: r(40.0, y + 22.0, 320.0, 30.0) });
    }
    marks.push(Mark { number: 10, rect: r(40.0, 620.0, 160.0, 36.0) });
    out.push(Layout { name: "form", width: 800, height: 700, marks, texts });
    // A dense list of links, 22 px apart, each with its own text.
    let (mut marks, mut texts) = (Vec::new(), Vec::new());
    for i in 0..30u32 {
        let y = 10.0 + i as f32 * 22.0;
        let rect = r(60.0, y, 180.0, 18.0);
        texts.push(r(62.0, y + 2.0, 170.0, 14.0));
        marks.push(Mark { number: 100 + i, rect });
    }
    out.push(Layout { name: "links", width: 600, height: 680, marks, texts });
    // A grid of 24 px icon buttons with 16 px gaps.
    let mut marks = Vec::new();
    for i in 0..24u32 {
        let (col, row) = (i % 6, i / 6);
        marks.push(Mark { number: 20 + i, rect: r(40.0 + col as f32 * 64.0, 40.0 + row as f32 * 64.0, 24.0, 24.0) });
    }
    out.push(Layout { name: "icons", width: 460, height: 320, marks, texts: Vec::new() });
    // Refs in every corner and along every edge.
    let (w, h) = (640.0, 400.0);
    let mut marks = Vec::new();
    for (i, (x, y)) in [(0.0, 0.0), (w - 40.0, 0.0), (0.0, h - 20.0), (w - 40.0, h - 20.0), (300.0, 0.0), (0.0, 190.0), (w - 40.0, 190.0), (300.0, h - 20.0)]
        .into_iter()
        .enumerate()
    {
        marks.push(Mark { number: 1 + i as u32 * 7, rect: r(x, y, 40.0, 20.0) });
    }
    out.push(Layout { name: "edges", width: w as u32, height: h as u32, marks, texts: Vec::new() });
    out
}

fn picture(l: &Layout) -> Vec<u8> {
    let mut img = RgbImage::from_pixel(l.width, l.height, Rgb([255, 255, 255]));
    for t in &l.texts {
        for y in t.y as u32..(t.y + t.height) as u32 {
            for x in t.x as u32..(t.x + t.width) as u32 {
                if y % 3 != 0 && x % 4 != 0 {
                    img.put_pixel(x.min(l.width - 1), y.min(l.height - 1), Rgb([60, 60, 60]));
                }
            }
        }
    }
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png).expect("png");
    out.into_inner()
}

/// What tesseract is asked to read.
#[derive(Clone, Copy)]
enum Read {
    /// A badge: digits on a dark badge (so inverted), one line, enlarged
    /// to 40 px tall.
    Digits,
    /// An element's own text, one line, as it is, enlarged `zoom` times.
    Words { zoom: u32 },
}

/// Crops `r` of `img`, `inset` pixels in, for tesseract (grey, enlarged,
/// with a white margin, as OCR wants) and saves it in `dir`; `None` when
/// nothing of `r` is left.
fn crop(img: &RgbImage, r: &Rect, inset: u32, what: Read, dir: &Path, n: usize) -> Option<PathBuf> {
    // Inside the badge's border (or the element's outline), which OCR
    // would read as a frame.
    let (x, y) = (r.x.max(0.0) as u32 + inset, r.y.max(0.0) as u32 + inset);
    let (w, h) = ((r.width as u32).checked_sub(2 * inset)?, (r.height as u32).checked_sub(2 * inset)?);
    let (w, h) = (w.min(img.width().checked_sub(x)?), h.min(img.height().checked_sub(y)?));
    if w == 0 || h == 0 {
        return None;
    }
    let crop = image::imageops::crop_imm(img, x, y, w, h).to_image();
    let mut grey = image::DynamicImage::ImageRgb8(crop).to_luma8();
    let zoom = match what {
        Read::Digits => {
            image::imageops::invert(&mut grey);
            ((40.0 / h as f32).round() as u32).max(1)
        }
        Read::Words { zoom } => zoom.max(1),
    };
    let big = image::imageops::resize(&grey, w * zoom, h * zoom, image::imageops::FilterType::Lanczos3);
    // A white margin: tesseract reads badly up to the edge.
    let mut page = image::GrayImage::from_pixel(w * zoom + 40, h * zoom + 40, image::Luma([255]));
    image::imageops::overlay(&mut page, &big, 20, 20);
    let path = dir.join(format!("crop-{n}.png"));
    page.save(&path).expect("crop saved");
    Some(path)
}

/// Starts one tesseract on `images` (a file listing them, in `dir`, named
/// `list`): each is a page of one line (psm 7), and the pages' text comes
/// out in order, a form feed between two. One process reads them all:
/// starting tesseract (loading its model) costs more than reading a crop.
/// No digit whitelist: a reading counts only when it is exactly the ref's
/// digits, and tesseract 5's LSTM engine, asked for digits only, returns
/// nothing for a lone digit it reads right without the whitelist (an 8,
/// here).
fn tesseract(images: &[PathBuf], dir: &Path, list: &str) -> Option<std::process::Child> {
    let list = dir.join(list);
    let names: Vec<String> = images.iter().map(|p| p.display().to_string()).collect();
    std::fs::write(&list, names.join("\n") + "\n").ok()?;
    std::process::Command::new("tesseract")
        .arg(&list)
        .arg("stdout")
        .args(["--psm", "7"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()
}

/// The text of each of `images` that `child` read; when its pages do not
/// come out one per image, each image is read again on its own.
fn texts_of(child: Option<std::process::Child>, images: &[PathBuf], dir: &Path) -> Vec<String> {
    let out = child.and_then(|c| c.wait_with_output().ok()).map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let pages: Vec<String> = out.split('\u{c}').map(|t| t.trim().to_owned()).collect();
    if pages.len() == images.len() {
        return pages;
    }
    if images.len() == 1 {
        return vec![pages.join(" ").trim().to_owned()];
    }
    images
        .iter()
        .flat_map(|image| {
            let one = std::slice::from_ref(image);
            texts_of(tesseract(one, dir, "one.txt"), one, dir)
        })
        .collect()
}

/// Reads each of `rects` in `img`, by two tesseracts, each reading half
/// (more would starve the Chromium tests that run beside these); "" for
/// one that could not be read.
fn read_all(img: &RgbImage, rects: &[Rect], inset: u32, what: Read, ocr: &mut Ocr) -> Vec<String> {
    let crops: Vec<Option<PathBuf>> = rects
        .iter()
        .map(|r| {
            ocr.crops += 1;
            crop(img, r, inset, what, &ocr.dir, ocr.crops)
        })
        .collect();
    let images: Vec<PathBuf> = crops.iter().flatten().cloned().collect();
    let halves: Vec<&[PathBuf]> = images.chunks(images.len().div_ceil(2).max(1)).collect();
    let running: Vec<_> = halves.iter().enumerate().map(|(i, half)| tesseract(half, &ocr.dir, &format!("list-{}-{i}.txt", ocr.crops))).collect();
    let mut texts = halves.iter().zip(running).flat_map(|(half, child)| texts_of(child, half, &ocr.dir));
    crops.iter().map(|c| if c.is_some() { texts.next().unwrap_or_default() } else { String::new() }).collect()
}

/// Where the crops go, and how many there were.
struct Ocr {
    dir: std::path::PathBuf,
    crops: usize,
}

impl Ocr {
    /// `None` (the test skipped, saying why) without tesseract, unless
    /// `WHITTLE_OCR_TESTS=require`, where that is a failure.
    fn start(test: &str) -> Option<Ocr> {
        if std::process::Command::new("tesseract").arg("--version").output().is_err() {
            assert!(
                std::env::var("WHITTLE_OCR_TESTS").as_deref() != Ok("require"),
                "WHITTLE_OCR_TESTS=require, but tesseract is missing (apt-get install -y tesseract-ocr)"
            );
            eprintln!("{test}: SKIPPED (no tesseract; apt-get install -y tesseract-ocr, or set WHITTLE_OCR_TESTS=require to fail instead)");
            return None;
        }
        let dir = std::env::temp_dir().join(format!("whittle-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        Some(Ocr { dir, crops: 0 })
    }

    /// Done: the crops go, unless a check failed (they are kept to look
    /// at) or `WHITTLE_OCR_KEEP` is set (which keeps the pages' labelled
    /// pictures too).
    fn finish(self) {
        if std::env::var_os("WHITTLE_OCR_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

#[test]
fn every_label_reads_back_as_its_ref() {
    let Some(mut ocr) = Ocr::start("labels") else { return };
    let mut tally = Tally::default();
    for scale in [1.0f32, 2.0] {
        for l in layouts() {
            let marks: Vec<Mark> = l.marks.iter().map(|m| Mark { number: m.number, rect: scaled(&m.rect, scale) }).collect();
            let texts: Vec<Rect> = l.texts.iter().map(|t| scaled(t, scale)).collect();
            let big = Layout { name: l.name, width: (l.width as f32 * scale) as u32, height: (l.height as f32 * scale) as u32, marks, texts };
            let started = std::time::Instant::now();
            let got = annotate(&picture(&big), &big.marks, &[], &big.texts, scale).expect("annotated");
            let took = started.elapsed();
            assert_eq!(got.marked.len(), big.marks.len(), "{} at {scale}×: every mark placed", l.name);
            for (i, badge) in got.badges.iter().enumerate() {
                for t in &big.texts {
                    assert!(!overlaps(badge, t), "{} at {scale}×: the label of {} covers text at {t:?}", l.name, got.marked[i]);
                }
            }
            let img = image::load_from_memory(&got.jpeg).expect("a jpeg").to_rgb8();
            tally.labels(&img, &got, scale, &format!("{} at {scale}×", l.name), &mut ocr);
            eprintln!("labels: {} at {scale}×: {} labels drawn in {took:?}", l.name, got.marked.len());
        }
    }
    eprintln!("labels: {} of {} read back as their ref", tally.right, tally.labels);
    tally.assert_labels(&ocr);
    ocr.finish();
}

fn scaled(r: &Rect, s: f32) -> Rect {
    Rect { x: r.x * s, y: r.y * s, width: r.width * s, height: r.height * s }
}

fn overlaps(a: &Rect, b: &Rect) -> bool {
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

/// The pages of `corpus/pictures`, served on loopback and pictured through
/// the `screenshot` tool on `always` (Chromium at one device pixel per CSS
/// pixel), on a Chromium at two, and on `auto` (a static tab drawn in
/// Chromium). On every page but the dense table: every ref in view is
/// labelled, no label is over the page's text, ≥ 98% of the labels read
/// back as their ref, and each labelled element's own text reads as well
/// as on the picture taken with `marks: false` (≥ 95% of its words). On
/// the table of 600 tiny refs: every label inside the picture, none over
/// another, and the refs left unlabelled counted in `marks_truncated`.
pub(crate) async fn on_pages(always: &AutoBackend, auto: &AutoBackend) {
    let Some(mut ocr) = Ocr::start("labels-on-pages") else { return };
    let dir = whittle_corpus::pictures_dir();
    let pages: HashMap<String, Vec<u8>> = ["form", "links", "icons", "edges", "table"]
        .iter()
        .map(|p| (format!("/{p}"), std::fs::read(dir.join(format!("{p}.html"))).unwrap_or_else(|e| panic!("{p}.html in {}: {e}", dir.display()))))
        .collect();
    let site = Server::start(move |seen: &Seen| match pages.get(&seen.path) {
        Some(page) => Reply::page(200, "text/html; charset=utf-8", page),
        None => Reply::page(404, "text/html", b"<title>Not found</title><h1>Nothing here</h1>"),
    })
    .await;
    let sharp = AutoBackend::new(EnginePolicy::Chromium, CdpBackend::new(ChromiumOptions { device_scale: 2.0, ..ChromiumOptions::default() }));
    let mut tally = Tally::default();
    for (backend, name, scale, pages) in [
        (always, "chromium", 1.0f32, &["form", "links", "icons", "edges"][..]),
        (&sharp, "chromium at 2×", 2.0, &["form", "links", "icons", "edges"][..]),
        (auto, "static", 1.0, &["form", "links"][..]),
    ] {
        for page in pages {
            let started = std::time::Instant::now();
            let (labelled, plain, out, vocabulary) = pictures(backend, &site, page).await;
            let took = started.elapsed();
            let what = format!("{page} ({name})");
            let counters = &out.envelope.server.counters;
            assert!(!counters.marks_truncated, "{what}: a ref in view has no label\n{}", out.text);
            assert_eq!(labelled.over_text, 0, "{what}: {} label(s) over the page's text", labelled.over_text);
            assert_eq!((plain.width, plain.height), (labelled.width, labelled.height), "{what}: the two pictures differ in size");
            assert_eq!((labelled.width, labelled.height), ((1280.0 * scale) as u32, (800.0 * scale) as u32), "{what}");
            assert!(plain.marked.is_empty(), "{what}: marks:false drew labels");
            inside_and_apart(&labelled, &what);
            if std::env::var_os("WHITTLE_OCR_KEEP").is_some() {
                let _ = std::fs::write(ocr.dir.join(format!("{page}-{}x.jpg", scale)), &labelled.jpeg);
            }
            tally.add(&labelled, &plain, scale, &vocabulary, &what, &mut ocr);
            eprintln!("labels: {what}: {} labels, pictures in {took:?}", labelled.marked.len());
        }
    }
    // Hundreds of tiny refs: bounded, inside, apart, the rest counted.
    for backend in [always, &sharp] {
        let (labelled, _, out, _) = pictures(backend, &site, "table").await;
        let shown = out.envelope.page_content.as_ref().map_or(0, |p| p.elements.len());
        inside_and_apart(&labelled, "table");
        assert!(!labelled.marked.is_empty(), "table: no label drawn");
        if labelled.marked.len() < shown {
            assert!(out.envelope.server.counters.marks_truncated, "table: {} of {shown} labelled, not counted", labelled.marked.len());
        }
    }
    eprintln!(
        "labels: on pages, {} of {} labels read back as their ref; elements' words read {} with labels, {} without",
        tally.right, tally.labels, tally.words_with, tally.words_without
    );
    for w in tally.wrong.iter().chain(&tally.hidden) {
        eprintln!("labels:   {w}");
    }
    tally.assert_labels(&ocr);
    // The words must be there to be hidden: OCR reads most of the text
    // without labels, and as much with them.
    assert!(tally.words_without >= 40, "OCR read only {} words of the elements without labels", tally.words_without);
    assert!(
        tally.words_with * 100 >= tally.words_without * 95,
        "with labels, {} of the {} words read without them:\n{}",
        tally.words_with,
        tally.words_without,
        tally.hidden.join("\n")
    );
    ocr.finish();
}

/// `page` navigated to in a new session on `backend`, and pictured with
/// labels and with `marks: false`; the labelled screenshot's output; and
/// the words of the page's observation (what OCR may rightly read).
async fn pictures(backend: &AutoBackend, site: &Server, page: &str) -> (Annotated, Annotated, whittle::session::ToolOutput, HashSet<String>) {
    let mut s = crate::chromium::session(backend).await;
    let seen = call(&mut s, "navigate", json!({"url": site.url(&format!("/{page}")).as_str()})).await;
    let vocabulary = words(ok(&seen)).into_iter().collect();
    let mut out = call(&mut s, "screenshot", json!({})).await;
    ok(&out);
    let mut plain = call(&mut s, "screenshot", json!({"marks": false})).await;
    ok(&plain);
    assert_eq!(plain.envelope.server.counters.marks, 0, "{page}: marks:false counted marks");
    let (labelled, plain) = (out.image.take(), plain.image.take());
    (labelled.unwrap_or_else(|| panic!("{page}: no picture")), plain.unwrap_or_else(|| panic!("{page}: no picture")), out, vocabulary)
}

/// Every label inside the picture and none over another.
fn inside_and_apart(a: &Annotated, what: &str) {
    assert_eq!(a.badges.len(), a.marked.len(), "{what}");
    let mut sorted: Vec<&Rect> = a.badges.iter().collect();
    sorted.sort_by(|p, q| p.y.total_cmp(&q.y));
    for (i, b) in sorted.iter().enumerate() {
        assert!(b.x >= 0.0 && b.y >= 0.0 && b.x + b.width <= a.width as f32 && b.y + b.height <= a.height as f32, "{what}: a label outside the picture at {b:?}");
        // Sorted by top: only the next few can reach down to this one.
        for c in sorted[i + 1..].iter().take_while(|c| c.y < b.y + b.height) {
            assert!(!overlaps(b, c), "{what}: labels at {b:?} and {c:?} overlap");
        }
    }
}

/// The OCR counts over all pictures of a test.
#[derive(Default)]
struct Tally {
    labels: usize,
    right: usize,
    wrong: Vec<String>,
    words_without: usize,
    words_with: usize,
    hidden: Vec<String>,
}

impl Tally {
    /// Reads the labels of `a` (whose JPEG is `img`), each against its ref.
    fn labels(&mut self, img: &RgbImage, a: &Annotated, scale: f32, what: &str, ocr: &mut Ocr) {
        let first = ocr.crops + 1;
        let read = read_all(img, &a.badges, scale.round() as u32 + 1, Read::Digits, ocr);
        for (i, (number, text)) in a.marked.iter().zip(read).enumerate() {
            self.labels += 1;
            match text == number.to_string() {
                true => self.right += 1,
                false => self.wrong.push(format!("{what}: {number} read as {text:?} (crop-{}.png)", first + i)),
            }
        }
    }

    /// At least 98% of the labels read back as their ref.
    fn assert_labels(&self, ocr: &Ocr) {
        assert!(
            self.right * 100 >= self.labels * 98,
            "{} of {} labels read back (crops in {}):\n{}",
            self.right,
            self.labels,
            ocr.dir.display(),
            self.wrong.join("\n")
        );
    }

    /// Reads `labelled`'s labels, and each marked element's box in both
    /// pictures: the words of the page (`vocabulary`) read in it without
    /// labels must be read with them. An element that holds other marked
    /// elements (a landmark, a toolbar) is left to them: its text is
    /// theirs, read in their boxes.
    fn add(&mut self, labelled: &Annotated, plain: &Annotated, scale: f32, vocabulary: &HashSet<String>, what: &str, ocr: &mut Ocr) {
        let img = image::load_from_memory(&labelled.jpeg).expect("a jpeg").to_rgb8();
        let bare = image::load_from_memory(&plain.jpeg).expect("a jpeg").to_rgb8();
        let line = scale.round() as u32;
        self.labels(&img, labelled, scale, what, ocr);
        let own: Vec<(u32, Rect)> = labelled
            .marked
            .iter()
            .zip(&labelled.boxes)
            .filter(|(_, b)| !labelled.boxes.iter().any(|o| !std::ptr::eq(o, *b) && within(o, b)))
            .map(|(n, b)| (*n, *b))
            .collect();
        let boxes: Vec<Rect> = own.iter().map(|o| o.1).collect();
        // Inside the outline, so both crops hold the same element pixels
        // unless a label is over them.
        let zoom = Read::Words { zoom: (3.0 / scale).round() as u32 };
        let with = read_all(&img, &boxes, 2 * line, zoom, ocr);
        let without = read_all(&bare, &boxes, 2 * line, zoom, ocr);
        for (((number, _), with), without) in own.iter().zip(with).zip(without) {
            let seen = words(&with);
            for w in words(&without).into_iter().filter(|w| vocabulary.contains(w)) {
                self.words_without += 1;
                match seen.contains(&w) {
                    true => self.words_with += 1,
                    false => self.hidden.push(format!("{what}: [{number}] {w:?} read without labels, not with ({with:?})")),
                }
            }
        }
    }
}

/// Whether `a` lies inside `b`.
fn within(a: &Rect, b: &Rect) -> bool {
    a.x >= b.x && a.y >= b.y && a.x + a.width <= b.x + b.width && a.y + a.height <= b.y + b.height
}

/// The words of a text: letters and digits, lowercased, two or more long.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 2).map(str::to_lowercase).collect()
}
