//! Screenshots as the model gets them: Chromium's picture with a numbered
//! label on each element that has a ref, and a solid rectangle over each
//! sensitive field and each frame, so no value of theirs leaves the
//! machine as pixels either. Re-encoded as JPEG.
//!
//! Labels are white digits of Noto Sans Bold (the font shipped by the
//! `notosans` crate, rasterised by `ab_glyph`: no font is looked up on
//! the machine) on a solid badge with a thin white border, sized with the
//! picture's pixels per CSS pixel. A badge goes outside its element's
//! box — above its left corner, else to its left, below, to its right,
//! above its right corner, and inside the corner only when the box has
//! room — placed greedily in
//! the order asked: never over another badge, not over the page's text
//! when a place without text exists, and, where it can, not over another
//! marked element. Each marked box gets a thin outline in the badge's
//! colour, so badge and element pair up. A mark with nowhere to go inside
//! the picture is left out (and so counted as truncated).

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
#[derive(Debug, Clone)]
pub struct Annotated {
    /// The JPEG.
    pub jpeg: Vec<u8>,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// The refs whose marks were drawn, in the order asked.
    pub marked: Vec<u32>,
    /// Where each drawn mark's badge is (picture pixels), in the order of
    /// `marked`.
    pub badges: Vec<Rect>,
    /// Each drawn mark's box as outlined (its element's box in the
    /// picture), in the order of `marked`.
    pub boxes: Vec<Rect>,
    /// Badges that had to go over the page's text, every place off it
    /// being taken or outside the picture.
    pub over_text: u32,
    /// Rectangles covered.
    pub covered: u32,
}

/// The badge and outline colour: white on it has a contrast of 7.9:1.
const MARK: Rgb<u8> = Rgb([160, 0, 96]);
const LABEL_TEXT: Rgb<u8> = Rgb([255, 255, 255]);
const COVER: Rgb<u8> = Rgb([40, 40, 40]);
/// Marks past this many are not drawn (a page of thousands of refs).
const MAX_MARKS: usize = 2000;
/// Text boxes past this many are not avoided.
const MAX_TEXTS: usize = 8000;

/// Draws `marks` and covers `covers` on `picture` (any format the `image`
/// crate reads), as a JPEG. `texts` are the boxes of the page's text,
/// which badges keep off; `scale` is picture pixels per CSS pixel. All
/// rectangles are in picture pixels.
pub fn annotate(picture: &[u8], marks: &[Mark], covers: &[Rect], texts: &[Rect], scale: f32) -> Result<Annotated, String> {
    let mut img = image::load_from_memory(picture).map_err(|e| format!("the screenshot could not be read: {e}"))?.to_rgb8();
    let covered = covers.iter().filter(|r| fill(&mut img, r, COVER)).count() as u32;
    let font = Font::for_scale(scale);
    let (w, h) = img.dimensions();
    let view = Rect { x: 0.0, y: 0.0, width: w as f32, height: h as f32 };
    let boxes: Vec<(u32, Rect)> =
        marks.iter().take(MAX_MARKS).filter_map(|m| Some((m.number, clip(&m.rect, &view)?))).collect();
    let mut texts_grid = Grid::new(&view);
    for t in texts.iter().take(MAX_TEXTS) {
        if let Some(t) = clip(t, &view) {
            texts_grid.insert(t);
        }
    }
    let mut boxes_grid = Grid::new(&view);
    for (_, b) in &boxes {
        boxes_grid.insert(*b);
    }
    let mut badges_grid = Grid::new(&view);
    let mut placed = Vec::with_capacity(boxes.len());
    let mut over_text = 0;
    for (number, b) in &boxes {
        let size = font.badge(*number);
        if let Some((at, on_text)) = place(b, size, &view, &texts_grid, &boxes_grid, &badges_grid) {
            badges_grid.insert(at);
            placed.push((*number, *b, at));
            over_text += u32::from(on_text);
        }
    }
    // Outlines first, so no outline crosses a badge.
    for (_, b, _) in &placed {
        outline(&mut img, b, font.line);
    }
    for (number, _, at) in &placed {
        font.badge_at(&mut img, at, *number);
    }
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Jpeg).map_err(|e| format!("the screenshot could not be written: {e}"))?;
    Ok(Annotated {
        jpeg: out.into_inner(),
        width: w,
        height: h,
        marked: placed.iter().map(|p| p.0).collect(),
        badges: placed.iter().map(|p| p.2).collect(),
        boxes: placed.iter().map(|p| p.1).collect(),
        over_text,
        covered,
    })
}

/// Where the badge of `size` for box `b` goes: the first candidate inside
/// the picture, off the element and off every badge, preferring one off
/// the page's text, then one off the other marked boxes; and whether it
/// is over text.
fn place(b: &Rect, size: (f32, f32), view: &Rect, texts: &Grid, boxes: &Grid, badges: &Grid) -> Option<(Rect, bool)> {
    let (w, h) = size;
    let (vw, vh) = (view.width, view.height);
    if w > vw || h > vh {
        return None;
    }
    let across = |x: f32| x.clamp(0.0, vw - w);
    let down = |y: f32| y.clamp(0.0, vh - h);
    let right = b.x + b.width;
    let bottom = b.y + b.height;
    let outside = [
        (across(b.x), b.y - h),
        (b.x - w, down(b.y)),
        (across(b.x), bottom),
        (right, down(b.y)),
        (across(right - w), b.y - h),
    ];
    let mut candidates: Vec<(Rect, bool)> = outside
        .iter()
        .map(|&(x, y)| (Rect { x, y, width: w, height: h }, true))
        .filter(|(r, _)| r.x >= 0.0 && r.y >= 0.0 && r.x + w <= vw && r.y + h <= vh && area(r, b) <= 0.0)
        .collect();
    if b.width >= w && b.height >= h {
        candidates.push((Rect { x: b.x, y: b.y, width: w, height: h }, false));
    }
    // (over text, over another marked box, order): the least wins.
    let mut best: Option<((bool, bool, usize), Rect)> = None;
    for (i, (r, out)) in candidates.iter().enumerate() {
        if badges.any(r, |_| true) {
            continue;
        }
        let over_text = texts.any(r, |t| !*out || !inside(t, b));
        let over_box = boxes.any(r, |o| !same(o, b));
        let key = (over_text, over_box, i);
        if best.is_none_or(|(k, _)| key < k) {
            best = Some((key, *r));
        }
    }
    best.map(|((over_text, _, _), r)| (r, over_text))
}

/// A grid of rectangles, so a query looks at the few near it.
struct Grid {
    cell: f32,
    columns: usize,
    rows: usize,
    cells: Vec<Vec<Rect>>,
}

impl Grid {
    fn new(view: &Rect) -> Grid {
        let cell = 64.0;
        let columns = ((view.width / cell).ceil() as usize).clamp(1, 256);
        let rows = ((view.height / cell).ceil() as usize).clamp(1, 256);
        Grid { cell: (view.width / columns as f32).max(view.height / rows as f32).max(cell), columns, rows, cells: vec![Vec::new(); columns * rows] }
    }

    /// The cells `r` touches (columns, rows).
    fn range(&self, r: &Rect) -> (std::ops::RangeInclusive<usize>, std::ops::RangeInclusive<usize>) {
        let at = |v: f32, n: usize| ((v / self.cell).floor().max(0.0) as usize).min(n - 1);
        (at(r.x, self.columns)..=at(r.x + r.width, self.columns), at(r.y, self.rows)..=at(r.y + r.height, self.rows))
    }

    fn insert(&mut self, r: Rect) {
        let (cs, rs) = self.range(&r);
        for row in rs {
            for c in cs.clone() {
                self.cells[row * self.columns + c].push(r);
            }
        }
    }

    /// Whether a rectangle overlapping `r` passes `keep`.
    fn any(&self, r: &Rect, keep: impl Fn(&Rect) -> bool) -> bool {
        let (cs, rs) = self.range(r);
        rs.into_iter().any(|row| cs.clone().any(|c| self.cells[row * self.columns + c].iter().any(|o| area(o, r) > 0.0 && keep(o))))
    }
}

/// The area two rectangles share.
fn area(a: &Rect, b: &Rect) -> f32 {
    let w = (a.x + a.width).min(b.x + b.width) - a.x.max(b.x);
    let h = (a.y + a.height).min(b.y + b.height) - a.y.max(b.y);
    if w > 0.0 && h > 0.0 { w * h } else { 0.0 }
}

fn inside(a: &Rect, b: &Rect) -> bool {
    a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.width <= b.x + b.width + 0.5 && a.y + a.height <= b.y + b.height + 0.5
}

fn same(a: &Rect, b: &Rect) -> bool {
    a.x == b.x && a.y == b.y && a.width == b.width && a.height == b.height
}

/// `r` clipped to `view`; `None` when nothing of it is in view (or it is
/// not a number).
fn clip(r: &Rect, view: &Rect) -> Option<Rect> {
    let x0 = r.x.max(view.x);
    let y0 = r.y.max(view.y);
    let x1 = (r.x + r.width).min(view.x + view.width);
    let y1 = (r.y + r.height).min(view.y + view.height);
    // NaN compares false, so a box of NaNs is outside too.
    if !(x0 < x1 && y0 < y1) {
        return None;
    }
    Some(Rect { x: x0, y: y0, width: x1 - x0, height: y1 - y0 })
}

/// The pixel range of `r` clipped to the image; `None` when outside.
fn span(img: &RgbImage, r: &Rect) -> Option<(u32, u32, u32, u32)> {
    let (w, h) = img.dimensions();
    let r = clip(r, &Rect { x: 0.0, y: 0.0, width: w as f32, height: h as f32 })?;
    let (x0, y0) = (r.x.floor() as u32, r.y.floor() as u32);
    let (x1, y1) = (((r.x + r.width).ceil() as u32).min(w), ((r.y + r.height).ceil() as u32).min(h));
    (x0 < x1 && y0 < y1).then_some((x0, y0, x1, y1))
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

/// A `line`-pixel outline just inside `r`.
fn outline(img: &mut RgbImage, r: &Rect, line: u32) {
    let Some((x0, y0, x1, y1)) = span(img, r) else { return };
    let t = line.min((x1 - x0).div_ceil(2)).min((y1 - y0).div_ceil(2));
    for y in y0..y1 {
        for x in x0..x1 {
            if x < x0 + t || x >= x1 - t || y < y0 + t || y >= y1 - t {
                img.put_pixel(x, y, MARK);
            }
        }
    }
}

/// The labels' font size in CSS px: digits about 13 CSS px tall. At this
/// size tesseract read back every label from 1 to 300 at 1×, 1.5×, 2× and
/// 3×; at 16 px it lost a few (a lone 8, an 88).
const LABEL_PX: f32 = 18.0;

/// Noto Sans Bold, from the `notosans` crate: digits of a plain
/// proportional sans (a zero without a dot, which OCR and people read as
/// an eight), drawn at any size.
static FACE: std::sync::LazyLock<Option<ab_glyph::FontRef<'static>>> =
    std::sync::LazyLock::new(|| ab_glyph::FontRef::try_from_slice(notosans::BOLD_TTF).ok());

/// The label font at one picture scale: the ten digits rasterised once,
/// with the badge's padding and lines.
struct Font {
    /// Each digit's coverage (0–255), `height` rows of `advance` columns,
    /// its top row at the digits' top.
    digits: Vec<Vec<u8>>,
    /// Picture pixels per digit, across.
    advance: u32,
    /// Picture pixels from the digits' top to their baseline.
    height: u32,
    /// Badge padding, border and outline, in picture pixels.
    pad: u32,
    line: u32,
}

impl Font {
    /// Digits of Noto Sans Bold at [`LABEL_PX`] CSS px at `scale` picture
    /// pixels per CSS pixel.
    fn for_scale(scale: f32) -> Font {
        use ab_glyph::{Font as _, ScaleFont as _};
        let scale = if scale.is_finite() { scale.clamp(0.5, 8.0) } else { 1.0 };
        let unit = scale.round().max(1.0) as u32;
        let (pad, line) = (2 * unit, unit);
        let px = LABEL_PX * scale;
        let Some(face) = FACE.as_ref() else {
            return Font { digits: Vec::new(), advance: 0, height: 0, pad, line };
        };
        let scaled = face.as_scaled(px);
        let ids: Vec<_> = ('0'..='9').map(|c| face.glyph_id(c)).collect();
        let advance = ids.iter().map(|&id| scaled.h_advance(id)).fold(0.0f32, f32::max).ceil() as u32;
        // The digits' ink from the top of the tallest to the baseline
        // (no digit of this face goes below it by more than its
        // anti-aliasing, which is kept).
        let outlines: Vec<_> = ids.iter().map(|&id| face.outline_glyph(id.with_scale_and_position(px, ab_glyph::point(0.0, 0.0)))).collect();
        let top = outlines.iter().flatten().map(|o| o.px_bounds().min.y).fold(0.0f32, f32::min).floor();
        let bottom = outlines.iter().flatten().map(|o| o.px_bounds().max.y).fold(0.0f32, f32::max).ceil();
        let height = (bottom - top).max(1.0) as u32;
        let digits = outlines
            .iter()
            .map(|o| {
                let mut cells = vec![0u8; (advance * height) as usize];
                if let Some(o) = o {
                    let b = o.px_bounds();
                    // Centred in its advance, whole pixels.
                    let dx = ((advance as f32 - b.width()) / 2.0).round().max(0.0) as i64;
                    let dy = (b.min.y - top) as i64;
                    o.draw(|x, y, c| {
                        let (x, y) = (i64::from(x) + dx, i64::from(y) + dy);
                        if (0..i64::from(advance)).contains(&x) && (0..i64::from(height)).contains(&y) {
                            cells[(y as u32 * advance + x as u32) as usize] = (c.clamp(0.0, 1.0) * 255.0).round() as u8;
                        }
                    });
                }
                cells
            })
            .collect();
        Font { digits, advance, height, pad, line }
    }

    /// The badge's size for `number`, border included.
    fn badge(&self, number: u32) -> (f32, f32) {
        let digits = number.to_string().len() as u32;
        let w = digits * self.advance + 2 * (self.pad + self.line);
        let h = self.height + 2 * (self.pad + self.line);
        (w as f32, h as f32)
    }

    /// Draws the badge for `number` at `at`: border, fill, digits.
    fn badge_at(&self, img: &mut RgbImage, at: &Rect, number: u32) {
        fill(img, at, LABEL_TEXT);
        let l = self.line as f32;
        let inner = Rect { x: at.x + l, y: at.y + l, width: at.width - 2.0 * l, height: at.height - 2.0 * l };
        fill(img, &inner, MARK);
        let (iw, ih) = img.dimensions();
        let left = at.x.floor() as u32 + self.pad + self.line;
        let top = at.y.floor() as u32 + self.pad + self.line;
        for (i, d) in number.to_string().bytes().enumerate() {
            let Some(cells) = self.digits.get(usize::from(d.wrapping_sub(b'0'))) else { continue };
            let ox = left + i as u32 * self.advance;
            for (k, &v) in cells.iter().enumerate() {
                let (x, y) = (ox + k as u32 % self.advance, top + k as u32 / self.advance);
                if v > 0 && x < iw && y < ih {
                    let p = img.get_pixel_mut(x, y);
                    *p = blend(MARK, LABEL_TEXT, v);
                }
            }
        }
    }
}

/// `over` on `under` at coverage `v` (0–255).
fn blend(under: Rgb<u8>, over: Rgb<u8>, v: u8) -> Rgb<u8> {
    let mix = |a: u8, b: u8| ((u16::from(a) * (255 - u16::from(v)) + u16::from(b) * u16::from(v)) / 255) as u8;
    Rgb([mix(under[0], over[0]), mix(under[1], over[1]), mix(under[2], over[2])])
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

    fn r(x: f32, y: f32, width: f32, height: f32) -> Rect {
        Rect { x, y, width, height }
    }

    #[test]
    fn marks_and_covers_land_where_asked() {
        let marks = [Mark { number: 17, rect: r(10.0, 30.0, 60.0, 30.0) }, Mark { number: 3, rect: r(500.0, 500.0, 10.0, 10.0) }];
        let got = annotate(&white(200, 100), &marks, &[r(100.0, 50.0, 50.0, 20.0)], &[], 1.0).expect("annotated");
        assert_eq!((got.width, got.height, got.marked.as_slice(), got.covered), (200, 100, &[17][..], 1));
        let img = image::load_from_memory(&got.jpeg).expect("a jpeg").to_rgb8();
        let dark = |x, y| img.get_pixel(x, y).0.iter().all(|&c| c < 90);
        let marked = |x: u32, y: u32| {
            let p = img.get_pixel(x, y).0;
            p[0] > 110 && p[1] < 70
        };
        // The cover is solid; the outline is drawn; the middle of the
        // marked box is untouched; the badge sits above the box's corner.
        assert!(dark(125, 60));
        assert!(marked(40, 59));
        assert!(img.get_pixel(40, 45).0.iter().all(|&c| c > 200));
        let badge = got.badges[0];
        assert_eq!((badge.x, badge.y + badge.height), (10.0, 30.0), "above the left corner: {badge:?}");
        assert!(badge.height >= 9.0 + 2.0, "digits at least 9 px tall: {badge:?}");
    }

    #[test]
    fn badges_keep_off_text_and_each_other_and_stay_in_the_picture() {
        // A column of links 20 px apart with text right above each, and
        // refs in every corner.
        let mut marks = Vec::new();
        let mut texts = Vec::new();
        for i in 0..12u32 {
            let y = 20.0 + i as f32 * 40.0;
            marks.push(Mark { number: i + 1, rect: r(60.0, y, 120.0, 18.0) });
            texts.push(r(62.0, y + 2.0, 100.0, 14.0));
            texts.push(r(60.0, y - 20.0, 300.0, 16.0));
        }
        for (n, rect) in [(101, r(0.0, 0.0, 30.0, 20.0)), (102, r(370.0, 0.0, 30.0, 20.0)), (103, r(0.0, 480.0, 30.0, 20.0)), (104, r(370.0, 480.0, 30.0, 20.0))] {
            marks.push(Mark { number: n, rect });
        }
        let got = annotate(&white(400, 500), &marks, &[], &texts, 1.0).expect("annotated");
        assert_eq!(got.marked.len(), marks.len(), "every mark placed: {:?}", got.marked);
        for (i, a) in got.badges.iter().enumerate() {
            assert!(a.x >= 0.0 && a.y >= 0.0 && a.x + a.width <= 400.0 && a.y + a.height <= 500.0, "{a:?} leaves the picture");
            for t in &texts {
                assert_eq!(area(a, t), 0.0, "badge {} at {a:?} covers text {t:?}", got.marked[i]);
            }
            for (j, b) in got.badges.iter().enumerate() {
                assert!(i == j || area(a, b) == 0.0, "badges {} and {} collide", got.marked[i], got.marked[j]);
            }
            let m = marks.iter().find(|m| m.number == got.marked[i]).expect("a mark");
            assert_eq!(area(a, &m.rect), 0.0, "badge {} hides its own element", m.number);
        }
    }

    #[test]
    fn every_digit_has_ink_of_at_least_nine_css_px() {
        assert!(FACE.is_some(), "the label font did not load");
        for scale in [1.0, 2.0, 3.0] {
            let font = Font::for_scale(scale);
            assert!(font.height as f32 >= 9.0 * scale, "digits {} px tall at {scale}×", font.height);
            for (d, cells) in font.digits.iter().enumerate() {
                assert!(cells.iter().filter(|&&v| v > 128).count() as f32 >= 10.0 * scale * scale, "{d} has almost no ink at {scale}×");
            }
        }
    }

    #[test]
    fn labels_grow_with_the_device_pixel_ratio() {
        let mark = [Mark { number: 7, rect: r(100.0, 100.0, 50.0, 50.0) }];
        let one = annotate(&white(400, 400), &mark, &[], &[], 1.0).expect("annotated").badges[0];
        let three = annotate(&white(400, 400), &mark, &[], &[], 3.0).expect("annotated").badges[0];
        assert!(three.height >= 2.5 * one.height && three.height <= 3.5 * one.height, "{one:?} at 1, {three:?} at 3");
    }

    #[test]
    fn bad_boxes_and_tiny_pictures_draw_nothing_outside() {
        let nan = f32::NAN;
        let marks = [
            Mark { number: 1, rect: r(nan, nan, nan, nan) },
            Mark { number: 2, rect: r(-1e9, -1e9, 2e9, 2e9) },
            Mark { number: 3, rect: r(5000.0, 0.0, 10.0, 10.0) },
            Mark { number: u32::MAX, rect: r(0.0, 0.0, 1.0, 1.0) },
        ];
        let got = annotate(&white(1, 1), &marks, &[r(nan, 0.0, 1.0, 1.0)], &[r(0.0, 0.0, f32::INFINITY, 1.0)], f32::NAN).expect("annotated");
        assert!(got.marked.is_empty(), "no badge fits a 1×1 picture: {:?}", got.marked);
        // A box larger than the view is labelled inside its corner.
        let got = annotate(&white(300, 200), &marks[1..2], &[], &[], 1.0).expect("annotated");
        assert_eq!(got.marked, [2]);
        assert_eq!((got.badges[0].x, got.badges[0].y), (0.0, 0.0));
    }

    #[test]
    fn a_dense_table_is_bounded_and_counts_what_did_not_fit() {
        let marks: Vec<Mark> =
            (0..5000u32).map(|i| Mark { number: i, rect: r((i % 50) as f32 * 8.0, (i / 50) as f32 * 8.0, 6.0, 6.0) }).collect();
        let got = annotate(&white(400, 400), &marks, &[], &[], 1.0).expect("annotated");
        assert!(got.marked.len() < MAX_MARKS, "{} marked", got.marked.len());
        for (i, a) in got.badges.iter().enumerate() {
            for b in &got.badges[i + 1..] {
                assert_eq!(area(a, b), 0.0);
            }
        }
    }

    #[test]
    fn a_broken_picture_is_an_error() {
        assert!(annotate(b"not an image", &[], &[], &[], 1.0).is_err());
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
