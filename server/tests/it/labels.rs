//! The labels of a marked picture read back as their refs: each badge is
//! cropped from the JPEG and read by tesseract (Debian's `tesseract-ocr`,
//! digits only), on layouts like the pages people mark: a form, a dense
//! list of links, a grid of small icon buttons, refs at every edge.
//! Without tesseract the test says it skipped, unless
//! `WHITTLE_OCR_TESTS=require`.

use image::{ImageFormat, Rgb, RgbImage};
use whittle::picture::{annotate, Mark};
use whittle_engine::Rect;

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

/// Starts tesseract on `badge` of `img`, `inset` pixels in (grey, inverted
/// so the digits are dark, enlarged 3×, as OCR wants); `None` when it
/// cannot be started.
fn read(img: &RgbImage, badge: &Rect, inset: u32, dir: &std::path::Path, n: usize) -> Option<std::process::Child> {
    // Inside the badge's border, which OCR would read as a frame.
    let (x, y) = (badge.x as u32 + inset, badge.y as u32 + inset);
    let (w, h) = ((badge.width as u32 - 2 * inset).min(img.width() - x), (badge.height as u32 - 2 * inset).min(img.height() - y));
    let crop = image::imageops::crop_imm(img, x, y, w, h).to_image();
    let mut grey = image::DynamicImage::ImageRgb8(crop).to_luma8();
    image::imageops::invert(&mut grey);
    let big = image::imageops::resize(&grey, w * 3, h * 3, image::imageops::FilterType::CatmullRom);
    // A white margin: tesseract reads badly up to the edge.
    let mut page = image::GrayImage::from_pixel(w * 3 + 40, h * 3 + 40, image::Luma([255]));
    image::imageops::overlay(&mut page, &big, 20, 20);
    let path = dir.join(format!("badge-{n}.png"));
    page.save(&path).expect("crop saved");
    std::process::Command::new("tesseract")
        .arg(&path)
        .arg("stdout")
        .args(["--psm", "7", "-c", "tessedit_char_whitelist=0123456789"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()
}

/// What a `read` found.
fn text_of(child: std::process::Child) -> String {
    child.wait_with_output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned()).unwrap_or_default()
}

#[test]
fn every_label_reads_back_as_its_ref() {
    if std::process::Command::new("tesseract").arg("--version").output().is_err() {
        assert!(
            std::env::var("WHITTLE_OCR_TESTS").as_deref() != Ok("require"),
            "WHITTLE_OCR_TESTS=require, but tesseract is missing (apt-get install -y tesseract-ocr)"
        );
        eprintln!("labels: SKIPPED (no tesseract; apt-get install -y tesseract-ocr, or set WHITTLE_OCR_TESTS=require to fail instead)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("whittle-labels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let (mut total, mut right, mut wrong) = (0, 0, Vec::new());
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
            // Two tesseracts at a time: more would starve the Chromium
            // tests that run beside this one.
            let mut texts = Vec::new();
            for pair in got.badges.chunks(2) {
                let mut reading = Vec::new();
                for badge in pair {
                    total += 1;
                    reading.push(read(&img, badge, scale.round() as u32 + 1, &dir, total).expect("tesseract started"));
                }
                texts.extend(reading.into_iter().map(text_of));
            }
            for (i, (number, text)) in got.marked.iter().zip(texts).enumerate() {
                if text == number.to_string() {
                    right += 1;
                } else {
                    wrong.push(format!("{} at {scale}×, label {i}: {number} read as {text:?}", l.name));
                }
            }
            eprintln!("labels: {} at {scale}×: {} labels drawn in {took:?}", l.name, got.marked.len());
        }
    }
    eprintln!("labels: {right} of {total} read back as their ref");
    assert!(right * 100 >= total * 98, "{right} of {total} labels read back (crops in {}):\n{}", dir.display(), wrong.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn scaled(r: &Rect, s: f32) -> Rect {
    Rect { x: r.x * s, y: r.y * s, width: r.width * s, height: r.height * s }
}

fn overlaps(a: &Rect, b: &Rect) -> bool {
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}
