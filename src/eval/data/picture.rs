//! Pictures of arrays written to files: `save_svg (f, a)` and `save_png (f, a)`.
//!
//! An array of numbers of one dimension is drawn as a line chart, of two as a heatmap (row 0
//! at the top, a dark-blue-to-yellow scale); `save_png` of a `uint8 ^ (h \* w)` array writes
//! it as a grey image, of a `(uint8 * uint8 * uint8) ^ (h \* w)` (or four components) as an
//! RGB (RGBA) image, one pixel per element. Both carry the axes, the index ranges and the
//! value range as text (the PNG in a small pixel font, `glyphs`); a PNG heatmap is the
//! picture with a colour bar below it.

use std::fs::File;
use std::io::BufWriter;

use super::glyphs;
use crate::eval::value::Value;
use crate::types::shape::array_shape;
use crate::types::ty::{IntTy, Type};

/// What is drawn of an array, decided from its type when the call is compiled.
#[derive(Clone, Debug, PartialEq)]
pub enum Picture {
    /// A line chart of `n` values.
    Line(usize),
    /// A heatmap of `rows × columns` values.
    Heatmap(usize, usize),
    /// An image of `height × width` pixels of `channels` bytes (1 grey, 3 RGB, 4 RGBA).
    Image {
        height: usize,
        width: usize,
        channels: usize,
    },
}

impl Picture {
    /// The picture of an array of type `ty`; `image` allows the `uint8` images (`save_png`).
    pub fn of(ty: &Type, image: bool) -> Result<Picture, String> {
        let refuse = || {
            format!(
                "a picture is of an array of numbers of one dimension (a line chart) or two (a heatmap){}, and this is `{ty}`",
                if image {
                    ", or a `uint8` image `uint8 ^ (h \\* w)` or `(uint8 * uint8 * uint8) ^ (h \\* w)`"
                } else {
                    ""
                }
            )
        };
        let (dims, cell) = array_shape(ty).ok_or_else(refuse)?;
        let numeric = matches!(cell, Type::Int(_) | Type::Double | Type::Float);
        match (dims.as_slice(), &cell) {
            ([height, width], Type::Int(IntTy::U8)) if image => Ok(Picture::Image {
                height: *height,
                width: *width,
                channels: 1,
            }),
            ([height, width, channels @ (3 | 4)], Type::Int(IntTy::U8)) if image => {
                Ok(Picture::Image {
                    height: *height,
                    width: *width,
                    channels: *channels,
                })
            }
            ([n], _) if numeric && *n > 0 => Ok(Picture::Line(*n)),
            ([rows, columns], _) if numeric && *rows > 0 && *columns > 0 => {
                Ok(Picture::Heatmap(*rows, *columns))
            }
            _ => Err(refuse()),
        }
    }
}

/// The numbers of an array value, leaf by leaf.
pub fn numbers(array: &Value) -> Vec<f64> {
    match array {
        Value::Array(view) => (0..view.len)
            .map(|position| match view.leaf(position) {
                Value::Int(n) => n as f64,
                Value::Float(x) => x,
                _ => f64::NAN,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The finite minimum and maximum (0 and 1 when nothing is finite).
fn range(values: &[f64]) -> (f64, f64) {
    let (low, high) = values
        .iter()
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    if low <= high {
        (low, high)
    } else {
        (0.0, 1.0)
    }
}

/// A position in `[0, 1]` of `x` in the range.
fn fraction(x: f64, (low, high): (f64, f64)) -> f64 {
    if high > low {
        ((x - low) / (high - low)).clamp(0.0, 1.0)
    } else {
        0.5
    }
}

/// The colour scale, dark blue through green to yellow.
pub fn colour(t: f64) -> [u8; 3] {
    const STOPS: [[f64; 3]; 5] = [
        [68.0, 1.0, 84.0],
        [59.0, 82.0, 139.0],
        [33.0, 145.0, 140.0],
        [94.0, 201.0, 98.0],
        [253.0, 231.0, 37.0],
    ];
    let scaled = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let at = (scaled.floor() as usize).min(STOPS.len() - 2);
    let w = scaled - at as f64;
    let mix = |i: usize| (STOPS[at][i] + (STOPS[at + 1][i] - STOPS[at][i]) * w).round() as u8;
    [mix(0), mix(1), mix(2)]
}

fn number_text(x: f64) -> String {
    let text = format!("{x:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text.is_empty() || text == "-" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

const WIDTH: usize = 640;
const HEIGHT: usize = 400;
const MARGIN: usize = 60;
/// The colour of axes and labels.
const INK: [u8; 3] = [68, 68, 68];
/// A heatmap's colour bar: its distance below the picture and its height, in pixels.
const LEGEND_GAP: usize = 8;
const LEGEND_BAR: usize = 12;

/// The SVG text of a picture of `values`.
pub fn svg(picture: &Picture, values: &[f64]) -> String {
    let (low, high) = range(values);
    let (plot_w, plot_h) = (WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN);
    let mut body = String::new();
    let count = match picture {
        Picture::Line(n) => {
            let points: Vec<String> = values
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_finite())
                .map(|(i, &v)| {
                    let x = MARGIN as f64
                        + i as f64 * plot_w as f64 / (*n).max(2).saturating_sub(1) as f64;
                    let y = MARGIN as f64 + (1.0 - fraction(v, (low, high))) * plot_h as f64;
                    format!("{x:.2},{y:.2}")
                })
                .collect();
            body.push_str(&format!(
                "<polyline fill=\"none\" stroke=\"#3b528b\" stroke-width=\"1.5\" points=\"{}\"/>\n",
                points.join(" ")
            ));
            *n
        }
        Picture::Heatmap(rows, columns) => {
            let (cell_w, cell_h) = (
                plot_w as f64 / *columns as f64,
                plot_h as f64 / *rows as f64,
            );
            for r in 0..*rows {
                for c in 0..*columns {
                    let v = values[r * columns + c];
                    let [red, green, blue] = colour(fraction(v, (low, high)));
                    body.push_str(&format!(
                        "<rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{:.2}\" fill=\"rgb({red},{green},{blue})\"/>\n",
                        MARGIN as f64 + c as f64 * cell_w,
                        MARGIN as f64 + r as f64 * cell_h,
                        cell_w + 0.05,
                        cell_h + 0.05
                    ));
                }
            }
            body.push_str(&format!(
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>\n<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                MARGIN - 6,
                MARGIN + 12,
                MARGIN - 6,
                HEIGHT - MARGIN,
                rows - 1
            ));
            *columns
        }
        Picture::Image { .. } => 0,
    };
    let (top, bottom) = match picture {
        Picture::Line(_) => (number_text(high), number_text(low)),
        _ => (String::new(), String::new()),
    };
    let scale = match picture {
        Picture::Heatmap(..) => format!(
            "<text x=\"{MARGIN}\" y=\"{}\">values {} to {}</text>\n",
            HEIGHT - 12,
            number_text(low),
            number_text(high)
        ),
        _ => String::new(),
    };
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\" font-size=\"12\">\n\
<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"white\"/>\n\
{body}\
<path d=\"M{MARGIN},{MARGIN} V{} H{}\" fill=\"none\" stroke=\"#444\"/>\n\
<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{top}</text>\n\
<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{bottom}</text>\n\
<text x=\"{MARGIN}\" y=\"{}\" text-anchor=\"middle\">0</text>\n\
<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n\
{scale}</svg>\n",
        HEIGHT - MARGIN,
        WIDTH - MARGIN,
        MARGIN - 6,
        MARGIN + 4,
        MARGIN - 6,
        HEIGHT - MARGIN,
        HEIGHT - MARGIN + 16,
        WIDTH - MARGIN,
        HEIGHT - MARGIN + 16,
        count.saturating_sub(1)
    )
}

/// The pixels of a picture: width, height, channels and the bytes, row by row.
pub fn pixels(picture: &Picture, values: &[f64]) -> (usize, usize, usize, Vec<u8>) {
    match picture {
        Picture::Image {
            height,
            width,
            channels,
        } => (
            *width,
            *height,
            *channels,
            values.iter().map(|&v| v.clamp(0.0, 255.0) as u8).collect(),
        ),
        Picture::Heatmap(rows, columns) => {
            let (low, high) = range(values);
            // Each value a square of pixels, the picture at least 256 pixels on its longer side.
            let scale = (256 / rows.max(columns)).max(1);
            let (map_width, map_height) = (columns * scale, rows * scale);
            // Below it, a colour bar from the lowest value to the highest, labelled at its ends.
            let (low_text, high_text) = (number_text(low), number_text(high));
            let labels = glyphs::width(&low_text) + glyphs::width(&high_text) + 8;
            let width = map_width.max(labels + 32);
            let bar_top = map_height + LEGEND_GAP;
            let height = bar_top + LEGEND_BAR + 4 + glyphs::HEIGHT + 2;
            let mut bytes = vec![255u8; width * height * 3];
            let mut put = |x: usize, y: usize, rgb: [u8; 3]| {
                let at = (y * width + x) * 3;
                bytes[at..at + 3].copy_from_slice(&rgb);
            };
            for y in 0..map_height {
                for x in 0..map_width {
                    let v = values[(y / scale) * columns + x / scale];
                    if v.is_finite() {
                        put(x, y, colour(fraction(v, (low, high))));
                    }
                }
            }
            for x in 0..width {
                let rgb = colour(x as f64 / (width - 1).max(1) as f64);
                for y in bar_top..bar_top + LEGEND_BAR {
                    put(x, y, rgb);
                }
            }
            let text_top = bar_top + LEGEND_BAR + 4;
            glyphs::draw(&low_text, 0, text_top, &mut |x, y| put(x, y, INK));
            let right = width - glyphs::width(&high_text);
            glyphs::draw(&high_text, right, text_top, &mut |x, y| put(x, y, INK));
            (width, height, 3, bytes)
        }
        Picture::Line(n) => {
            let (low, high) = range(values);
            let (width, height) = (WIDTH, HEIGHT);
            let mut bytes = vec![255u8; width * height * 3];
            let mut put = |x: usize, y: usize, rgb: [u8; 3]| {
                if x < width && y < height {
                    let at = (y * width + x) * 3;
                    bytes[at..at + 3].copy_from_slice(&rgb);
                }
            };
            // The axes, the value range on the left and the index range below.
            for x in MARGIN..=WIDTH - MARGIN {
                put(x, HEIGHT - MARGIN, INK);
            }
            for y in MARGIN..=HEIGHT - MARGIN {
                put(MARGIN, y, INK);
            }
            let labels = [
                (
                    number_text(high),
                    MARGIN - 6,
                    MARGIN - glyphs::HEIGHT / 2,
                    true,
                ),
                (
                    number_text(low),
                    MARGIN - 6,
                    HEIGHT - MARGIN - glyphs::HEIGHT / 2,
                    true,
                ),
                ("0".to_string(), MARGIN, HEIGHT - MARGIN + 8, false),
                (
                    n.saturating_sub(1).to_string(),
                    WIDTH - MARGIN,
                    HEIGHT - MARGIN + 8,
                    false,
                ),
            ];
            for (text, x, y, right_aligned) in labels {
                let w = glyphs::width(&text);
                let left = if right_aligned {
                    x.saturating_sub(w)
                } else {
                    x.saturating_sub(w / 2)
                };
                glyphs::draw(&text, left, y, &mut |x, y| put(x, y, INK));
            }
            let (plot_w, plot_h) = ((WIDTH - 2 * MARGIN) as f64, (HEIGHT - 2 * MARGIN) as f64);
            let point = |i: usize, v: f64| -> (f64, f64) {
                (
                    MARGIN as f64 + i as f64 * plot_w / (*n).max(2).saturating_sub(1) as f64,
                    MARGIN as f64 + (1.0 - fraction(v, (low, high))) * plot_h,
                )
            };
            let mut previous: Option<(f64, f64)> = None;
            for (i, &v) in values.iter().enumerate() {
                if !v.is_finite() {
                    previous = None;
                    continue;
                }
                let here = point(i, v);
                let from = previous.unwrap_or(here);
                // A line of dots, one per pixel of its longer extent.
                let steps =
                    ((here.0 - from.0).abs().max((here.1 - from.1).abs()).ceil() as usize).max(1);
                for step in 0..=steps {
                    let t = step as f64 / steps as f64;
                    let (x, y) = (
                        from.0 + (here.0 - from.0) * t,
                        from.1 + (here.1 - from.1) * t,
                    );
                    put(x.round() as usize, y.round() as usize, [59, 82, 139]);
                    put(x.round() as usize, y.round() as usize + 1, [59, 82, 139]);
                }
                previous = Some(here);
            }
            (width, height, 3, bytes)
        }
    }
}

/// Write the picture of `values` to the PNG file `path`.
pub fn write_png(path: &str, picture: &Picture, values: &[f64]) -> Result<(), String> {
    let (width, height, channels, bytes) = pixels(picture, values);
    let file = File::create(path).map_err(|e| format!("cannot write `{path}`: {e}"))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), width as u32, height as u32);
    encoder.set_color(match channels {
        1 => png::ColorType::Grayscale,
        4 => png::ColorType::Rgba,
        _ => png::ColorType::Rgb,
    });
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("cannot write `{path}`: {e}"))?;
    writer
        .write_image_data(&bytes)
        .map_err(|e| format!("cannot write `{path}`: {e}"))?;
    writer
        .finish()
        .map_err(|e| format!("cannot write `{path}`: {e}"))
}

/// Write the SVG of `values` to `path`.
pub fn write_svg(path: &str, picture: &Picture, values: &[f64]) -> Result<(), String> {
    std::fs::write(path, svg(picture, values)).map_err(|e| format!("cannot write `{path}`: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> String {
        std::env::temp_dir()
            .join(format!("tessera-picture-{}-{name}", std::process::id()))
            .display()
            .to_string()
    }

    fn decode(path: &str) -> (png::OutputInfo, Vec<u8>) {
        let decoder = png::Decoder::new(std::io::BufReader::new(File::open(path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buffer).unwrap();
        buffer.truncate(info.buffer_size());
        (info, buffer)
    }

    #[test]
    fn a_uint8_matrix_is_written_as_the_grey_image_itself() {
        let ty = Type::array(
            Type::Int(IntTy::U8),
            Type::cproduct(vec![Type::Unitsum(2), Type::Unitsum(3)]),
        );
        let picture = Picture::of(&ty, true).unwrap();
        let path = scratch("grey.png");
        write_png(&path, &picture, &[0.0, 10.0, 20.0, 30.0, 40.0, 255.0]).unwrap();
        let (info, bytes) = decode(&path);
        assert_eq!((info.width, info.height), (3, 2));
        assert_eq!(info.color_type, png::ColorType::Grayscale);
        assert_eq!(bytes, [0, 10, 20, 30, 40, 255]);
    }

    #[test]
    fn rgb_triples_are_an_rgb_image() {
        let ty = Type::array(
            Type::tuple(vec![Type::Int(IntTy::U8); 3]),
            Type::cproduct(vec![Type::Unitsum(1), Type::Unitsum(2)]),
        );
        let picture = Picture::of(&ty, true).unwrap();
        let path = scratch("rgb.png");
        write_png(&path, &picture, &[255.0, 0.0, 0.0, 0.0, 0.0, 255.0]).unwrap();
        let (info, bytes) = decode(&path);
        assert_eq!(
            (info.width, info.height, info.color_type),
            (2, 1, png::ColorType::Rgb)
        );
        assert_eq!(bytes, [255, 0, 0, 0, 0, 255]);
    }

    #[test]
    fn a_heatmap_png_has_the_scale_s_ends_at_the_extremes() {
        let ty = Type::array(
            Type::Double,
            Type::cproduct(vec![Type::Unitsum(2), Type::Unitsum(2)]),
        );
        let picture = Picture::of(&ty, true).unwrap();
        let path = scratch("heat.png");
        write_png(&path, &picture, &[0.0, 1.0, 2.0, 3.0]).unwrap();
        let (info, bytes) = decode(&path);
        let width = info.width as usize;
        assert_eq!(width, 256);
        let pixel = |x: usize, y: usize| &bytes[(y * width + x) * 3..(y * width + x) * 3 + 3];
        // The lowest value at the top left, the highest at the bottom right of the map.
        assert_eq!(pixel(0, 0), colour(0.0));
        assert_eq!(pixel(255, 255), colour(1.0));
        // The colour bar below runs from one end of the scale to the other.
        let bar = 256 + LEGEND_GAP;
        assert_eq!(pixel(0, bar), colour(0.0));
        assert_eq!(pixel(255, bar), colour(1.0));
        // Its labels are drawn in ink under both ends.
        let text = bar + LEGEND_BAR + 4;
        let inked = |xs: std::ops::Range<usize>| {
            xs.into_iter()
                .any(|x| (text..text + glyphs::HEIGHT).any(|y| pixel(x, y) == INK))
        };
        assert!(inked(0..10) && inked(246..256));
        assert_eq!(info.height as usize, text + glyphs::HEIGHT + 2);
    }

    #[test]
    fn a_line_chart_png_labels_its_value_and_index_ranges() {
        let ty = Type::array(Type::Double, Type::Unitsum(5));
        let picture = Picture::of(&ty, true).unwrap();
        let path = scratch("line.png");
        write_png(&path, &picture, &[1.0, 4.0, 2.0, 8.0, 3.0]).unwrap();
        let (info, bytes) = decode(&path);
        let width = info.width as usize;
        let inked = |xs: std::ops::Range<usize>, ys: std::ops::Range<usize>| {
            xs.into_iter().any(|x| {
                ys.clone()
                    .any(|y| bytes[(y * width + x) * 3..(y * width + x) * 3 + 3] == INK)
            })
        };
        let half = glyphs::HEIGHT / 2;
        // `8` left of the top of the axis, `1` left of its bottom, `0` and `4` below its ends.
        assert!(inked(
            MARGIN - 6 - glyphs::width("8")..MARGIN - 6,
            MARGIN - half..MARGIN + half
        ));
        let bottom = HEIGHT - MARGIN;
        assert!(inked(
            MARGIN - 6 - glyphs::width("1")..MARGIN - 6,
            bottom - half..bottom + half
        ));
        let below = bottom + 8..bottom + 8 + glyphs::HEIGHT;
        assert!(inked(MARGIN - 4..MARGIN + 4, below.clone()));
        assert!(inked(WIDTH - MARGIN - 4..WIDTH - MARGIN + 4, below));
        // Nothing is drawn there for a label that is not there: right of the top label.
        assert!(!inked(
            MARGIN + 2..MARGIN + 20,
            MARGIN - half - 8..MARGIN - half
        ));
    }

    #[test]
    fn a_line_chart_svg_has_its_line_and_labels() {
        let ty = Type::array(Type::Double, Type::Unitsum(4));
        let picture = Picture::of(&ty, false).unwrap();
        let text = svg(&picture, &[0.0, 1.0, 0.5, -1.0]);
        assert!(text.starts_with("<svg"));
        assert!(text.contains("<polyline"));
        assert!(
            text.contains(">-1</text>") && text.contains(">1</text>") && text.contains(">3</text>")
        );
        // A line chart PNG is decodable too.
        let path = scratch("line.png");
        write_png(&path, &picture, &[0.0, 1.0, 0.5, -1.0]).unwrap();
        let (info, _) = decode(&path);
        assert_eq!((info.width, info.height), (640, 400));
    }

    #[test]
    fn other_arrays_are_refused_with_their_type() {
        let strings = Type::array(Type::String, Type::Unitsum(3));
        assert!(Picture::of(&strings, true)
            .unwrap_err()
            .contains("string ^ 3"));
        let cube = Type::array(
            Type::Double,
            Type::cproduct(vec![Type::Unitsum(2), Type::Unitsum(2), Type::Unitsum(2)]),
        );
        assert!(Picture::of(&cube, false).is_err());
    }
}
