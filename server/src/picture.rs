//! Screenshots as the model gets them (PROTOCOL §3, §5): Chromium's
//! picture with a numbered mark on each element that has a ref, and a
//! solid rectangle over each sensitive field and each frame, so no value
//! of theirs leaves the machine as pixels either. Re-encoded as JPEG.
//!
//! The digits are drawn from a 3×5 bitmap font of our own, scaled up, on a
//! filled label at the box's top-left corner; boxes get a 2 px outline.

use image::{ImageFormat, Rgb, RgbImage};
use whittle_engine::Rect;

/// A box to mark with its ref, in picture coordinates.
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    /// The ref drawn in the label.
    pub number: u32,
    /// The element's box.
    pub rect: Rect,
}

/// What [`annotate`] made.
#[derive(Debug)]
pub struct Annotated {
    /// The JPEG.
    pub jpeg: Vec<u8>,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// The refs whose marks were drawn (their boxes overlap the picture),
    /// in the order asked.
    pub marked: Vec<u32>,
    /// Rectangles covered.
    pub covered: u32,
}

const MARK: Rgb<u8> = Rgb([230, 0, 120]);
const LABEL_TEXT: Rgb<u8> = Rgb([255, 255, 255]);
const COVER: Rgb<u8> = Rgb([40, 40, 40]);
/// Pixels per font dot.
const SCALE: u32 = 2;

/// Draws `marks` and covers `covers` (both in picture coordinates) on
/// `picture` (any format the `image` crate reads), as a JPEG.
pub fn annotate(picture: &[u8], marks: &[Mark], covers: &[Rect]) -> Result<Annotated, String> {
    let mut img = image::load_from_memory(picture).map_err(|e| format!("the screenshot could not be read: {e}"))?.to_rgb8();
    let mut covered = 0;
    for r in covers {
        if fill(&mut img, r, COVER) {
            covered += 1;
        }
    }
    let mut marked = Vec::with_capacity(marks.len());
    for m in marks {
        if outline(&mut img, &m.rect) {
            label(&mut img, m.rect.x, m.rect.y, m.number);
            marked.push(m.number);
        }
    }
    let (width, height) = img.dimensions();
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Jpeg).map_err(|e| format!("the screenshot could not be written: {e}"))?;
    Ok(Annotated { jpeg: out.into_inner(), width, height, marked, covered })
}

/// The pixel range of `r` clipped to the image; `None` when outside.
fn span(img: &RgbImage, r: &Rect) -> Option<(u32, u32, u32, u32)> {
    let (w, h) = img.dimensions();
    let x0 = r.x.max(0.0).floor();
    let y0 = r.y.max(0.0).floor();
    let x1 = (r.x + r.width).min(w as f32).ceil();
    let y1 = (r.y + r.height).min(h as f32).ceil();
    // NaN compares false, so a box of NaNs is outside too.
    if !(x0 < x1 && y0 < y1) {
        return None;
    }
    Some((x0 as u32, y0 as u32, x1 as u32, y1 as u32))
}

fn fill(img: &mut RgbImage, r: &Rect, colour: Rgb<u8>) -> bool {
    let Some((x0, y0, x1, y1)) = span(img, r) else { return false };
    for y in y0..y1 {
        for x in x0..x1 {
            img.put_pixel(x, y, colour);
        }
    }
    true
}

fn outline(img: &mut RgbImage, r: &Rect) -> bool {
    let Some((x0, y0, x1, y1)) = span(img, r) else { return false };
    for t in 0..2u32 {
        for x in x0..x1 {
            for y in [y0 + t, y1.saturating_sub(1 + t)] {
                if y >= y0 && y < y1 {
                    img.put_pixel(x, y, MARK);
                }
            }
        }
        for y in y0..y1 {
            for x in [x0 + t, x1.saturating_sub(1 + t)] {
                if x >= x0 && x < x1 {
                    img.put_pixel(x, y, MARK);
                }
            }
        }
    }
    true
}

/// The 3×5 dots of each digit, one row per `u8` (bits 2..0, left to right).
const DIGITS: [[u8; 5]; 10] = [
    [0b111, 0b101, 0b101, 0b101, 0b111],
    [0b010, 0b110, 0b010, 0b010, 0b111],
    [0b111, 0b001, 0b111, 0b100, 0b111],
    [0b111, 0b001, 0b111, 0b001, 0b111],
    [0b101, 0b101, 0b111, 0b001, 0b001],
    [0b111, 0b100, 0b111, 0b001, 0b111],
    [0b111, 0b100, 0b111, 0b101, 0b111],
    [0b111, 0b001, 0b010, 0b010, 0b010],
    [0b111, 0b101, 0b111, 0b101, 0b111],
    [0b111, 0b101, 0b111, 0b001, 0b111],
];

/// A filled label with `number` at (`x`, `y`), kept inside the picture.
fn label(img: &mut RgbImage, x: f32, y: f32, number: u32) {
    let digits: Vec<usize> = number.to_string().bytes().map(|b| usize::from(b - b'0')).collect();
    let pad = SCALE;
    let w = digits.len() as u32 * 4 * SCALE - SCALE + 2 * pad;
    let h = 5 * SCALE + 2 * pad;
    let (iw, ih) = img.dimensions();
    let left = (x.max(0.0) as u32).min(iw.saturating_sub(w));
    let top = (y.max(0.0) as u32).min(ih.saturating_sub(h));
    fill(img, &Rect { x: left as f32, y: top as f32, width: w as f32, height: h as f32 }, MARK);
    for (i, &d) in digits.iter().enumerate() {
        let ox = left + pad + i as u32 * 4 * SCALE;
        for (row, bits) in DIGITS[d].iter().enumerate() {
            for col in 0..3u32 {
                if bits & (0b100 >> col) != 0 {
                    let r = Rect {
                        x: (ox + col * SCALE) as f32,
                        y: (top + pad + row as u32 * SCALE) as f32,
                        width: SCALE as f32,
                        height: SCALE as f32,
                    };
                    fill(img, &r, LABEL_TEXT);
                }
            }
        }
    }
}

/// Covers `covers` (picture coordinates) on `picture` and encodes it as
/// PNG, or as JPEG when the PNG would pass `max_png` bytes. Gives the
/// bytes and their MIME type.
pub fn cover_as_png(picture: &[u8], covers: &[Rect], max_png: usize) -> Result<(Vec<u8>, &'static str), String> {
    let mut img = image::load_from_memory(picture).map_err(|e| format!("the screenshot could not be read: {e}"))?.to_rgb8();
    for r in covers {
        fill(&mut img, r, COVER);
    }
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png).map_err(|e| format!("the screenshot could not be written: {e}"))?;
    if out.get_ref().len() <= max_png {
        return Ok((out.into_inner(), "image/png"));
    }
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Jpeg).map_err(|e| format!("the screenshot could not be written: {e}"))?;
    Ok((out.into_inner(), "image/jpeg"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn white(w: u32, h: u32) -> Vec<u8> {
        let img = RgbImage::from_pixel(w, h, Rgb([255, 255, 255]));
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).expect("png");
        out.into_inner()
    }

    #[test]
    fn marks_and_covers_land_where_asked() {
        let r = |x, y, width, height| Rect { x, y, width, height };
        let marks = [Mark { number: 17, rect: r(10.0, 10.0, 60.0, 30.0) }, Mark { number: 3, rect: r(500.0, 500.0, 10.0, 10.0) }];
        let got = annotate(&white(200, 100), &marks, &[r(100.0, 50.0, 50.0, 20.0)]).expect("annotated");
        assert_eq!((got.width, got.height, got.marked.as_slice(), got.covered), (200, 100, &[17][..], 1));
        let img = image::load_from_memory(&got.jpeg).expect("a jpeg").to_rgb8();
        let dark = |x, y| img.get_pixel(x, y).0.iter().all(|&c| c < 90);
        let pinkish = |x: u32, y: u32| {
            let p = img.get_pixel(x, y).0;
            p[0] > 170 && p[1] < 90
        };
        // The cover is solid; the outline is drawn; the middle of the
        // marked box is untouched.
        assert!(dark(125, 60));
        assert!(pinkish(40, 39));
        assert!(img.get_pixel(50, 30).0.iter().all(|&c| c > 200));
    }

    #[test]
    fn a_broken_picture_is_an_error() {
        assert!(annotate(b"not an image", &[], &[]).is_err());
    }

    #[test]
    fn cover_as_png_covers_and_falls_back_to_jpeg_past_the_limit() {
        let r = Rect { x: 10.0, y: 10.0, width: 30.0, height: 20.0 };
        let (png, mime) = cover_as_png(&white(120, 80), &[r], usize::MAX).expect("encoded");
        assert_eq!(mime, "image/png");
        let img = image::load_from_memory(&png).expect("a png").to_rgb8();
        assert_eq!(img.dimensions(), (120, 80));
        assert_eq!(img.get_pixel(20, 20), &COVER, "the field is covered");
        assert_eq!(img.get_pixel(100, 70).0, [255, 255, 255], "the rest is untouched");
        let (jpeg, mime) = cover_as_png(&white(120, 80), &[r], 10).expect("encoded");
        assert_eq!(mime, "image/jpeg");
        assert_eq!(image::guess_format(&jpeg).ok(), Some(ImageFormat::Jpeg));
    }
}
