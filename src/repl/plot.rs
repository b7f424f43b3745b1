//! Pictures in the terminal: `:plot` draws a 1-D array of numbers as a line chart (braille
//! dots) and a 2-D one as a heatmap (coloured half blocks), `:hist` a histogram. Without
//! colours (`NO_COLOR`, or output that is not a terminal) the same pictures are plain text:
//! `*` for the line, a ramp of characters for the heatmap, `#` for the bars.

use tessera::NumericArray;

/// How a picture is drawn: its width in characters (the terminal's) and whether it may use
/// colours and braille.
#[derive(Clone, Copy, Debug)]
pub struct Canvas {
    pub width: usize,
    pub height: usize,
    pub fancy: bool,
}

impl Canvas {
    /// The width of the terminal on stdout (or `COLUMNS`, else 80), a height that suits it.
    pub fn for_terminal(fancy: bool) -> Canvas {
        let width = terminal_width().unwrap_or(80).clamp(30, 200);
        Canvas {
            width,
            height: 16,
            fancy,
        }
    }
}

fn terminal_width() -> Option<usize> {
    // SAFETY: TIOCGWINSZ writes a `winsize` into the struct given; a failure leaves it zero.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    if ok && size.ws_col > 0 {
        return Some(size.ws_col as usize);
    }
    std::env::var("COLUMNS").ok()?.parse().ok()
}

/// A number as an axis label: short, `%g`-like.
fn label(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let magnitude = x.abs();
    if (1e-3..1e6).contains(&magnitude) {
        let text = format!("{x:.3}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        text.to_string()
    } else {
        format!("{x:.2e}")
    }
}

/// The finite minimum and maximum of `values` (`None` when none is finite).
fn range(values: &[f64]) -> Option<(f64, f64)> {
    let finite = values.iter().copied().filter(|x| x.is_finite());
    let (low, high) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    (low <= high).then_some((low, high))
}

/// The picture of `array`: a line chart of one dimension, a heatmap of two; an error message
/// for more dimensions or no finite value.
pub fn plot(array: &NumericArray, canvas: Canvas) -> Result<String, String> {
    match array.dims.as_slice() {
        [_] => line_chart(&array.values, canvas),
        [rows, columns] => heatmap(&array.values, *rows, *columns, canvas),
        dims => Err(format!(
            "`:plot` draws an array of one dimension (a line) or two (a heatmap), and `{}` has {}",
            array.type_text,
            dims.len()
        )),
    }
}

/// A line chart of `values` by index: the value range on the left, the index range below.
pub fn line_chart(values: &[f64], canvas: Canvas) -> Result<String, String> {
    let (low, high) = range(values).ok_or("nothing to draw: no finite value")?;
    let (top, bottom) = (label(high), label(low));
    let margin = top.chars().count().max(bottom.chars().count());
    let columns = canvas.width.saturating_sub(margin + 3).max(10);
    let rows = canvas.height.max(4);
    // Dots per character: braille has 2 × 4, plain text 1 × 1.
    let (dx, dy) = if canvas.fancy { (2, 4) } else { (1, 1) };
    let (width, height) = (columns * dx, rows * dy);
    let mut dots = vec![vec![false; width]; height];
    let count = values.len();
    let y_of = |value: f64| -> Option<usize> {
        if !value.is_finite() {
            return None;
        }
        let fraction = if high > low {
            (value - low) / (high - low)
        } else {
            0.5
        };
        Some(((1.0 - fraction) * (height - 1) as f64).round() as usize)
    };
    let mut previous: Option<usize> = None;
    for x in 0..width {
        // The values under this column of dots: their mean when there are several.
        let first = x * count / width;
        let last = ((x + 1) * count / width).max(first + 1).min(count);
        let slice = &values[first.min(count - 1)..last];
        let finite: Vec<f64> = slice.iter().copied().filter(|v| v.is_finite()).collect();
        let y = if finite.is_empty() {
            None
        } else {
            y_of(finite.iter().sum::<f64>() / finite.len() as f64)
        };
        if let Some(y) = y {
            // Join to the previous point with a vertical run, so the line has no gaps.
            let (from, to) = match previous {
                Some(p) if canvas.fancy => (p.min(y), p.max(y)),
                _ => (y, y),
            };
            for line in dots.iter_mut().take(to + 1).skip(from) {
                line[x] = true;
            }
        }
        previous = y;
    }
    let mut lines = Vec::new();
    for row in 0..rows {
        let mut text = String::new();
        for column in 0..columns {
            if canvas.fancy {
                let mut bits = 0u32;
                for (bit_x, bit_y, bit) in BRAILLE_BITS {
                    if dots[row * 4 + bit_y][column * 2 + bit_x] {
                        bits |= bit;
                    }
                }
                text.push(char::from_u32(0x2800 + bits).unwrap_or(' '));
            } else {
                text.push(if dots[row][column] { '*' } else { ' ' });
            }
        }
        let axis_label = match row {
            0 => top.clone(),
            r if r == rows - 1 => bottom.clone(),
            _ => String::new(),
        };
        lines.push(format!("{axis_label:>margin$} ┤{}", text.trim_end()));
    }
    lines.push(format!(
        "{:>margin$} └{}",
        "",
        "─".repeat(columns),
        margin = margin
    ));
    let right = (count - 1).to_string();
    lines.push(format!(
        "{:>margin$}  0{right:>width$}",
        "",
        width = columns.saturating_sub(1),
        margin = margin
    ));
    Ok(lines.join("\n"))
}

/// Braille dot positions: (x, y, bit).
const BRAILLE_BITS: [(usize, usize, u32); 8] = [
    (0, 0, 0x01),
    (0, 1, 0x02),
    (0, 2, 0x04),
    (1, 0, 0x08),
    (1, 1, 0x10),
    (1, 2, 0x20),
    (0, 3, 0x40),
    (1, 3, 0x80),
];

/// Plain-text shades, light to dark.
const RAMP: &[char] = &[' ', '.', ':', '-', '=', '+', '*', '#', '%', '@'];

/// A colour scale from dark blue through green to yellow (viridis' ends and middle).
fn colour(fraction: f64) -> (u8, u8, u8) {
    const STOPS: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let scaled = fraction.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let at = (scaled.floor() as usize).min(STOPS.len() - 2);
    let t = scaled - at as f64;
    let (a, b) = (STOPS[at], STOPS[at + 1]);
    let mix = |x: f64, y: f64| (x + (y - x) * t).round() as u8;
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// A heatmap of a `rows × columns` matrix (row 0 at the top), averaged down to the canvas;
/// the index ranges and the value scale around it.
pub fn heatmap(
    values: &[f64],
    rows: usize,
    columns: usize,
    canvas: Canvas,
) -> Result<String, String> {
    let (low, high) = range(values).ok_or("nothing to draw: no finite value")?;
    if rows == 0 || columns == 0 {
        return Err("nothing to draw: the matrix is empty".to_string());
    }
    let margin = (rows - 1).to_string().len();
    let shown_columns = columns.min(canvas.width.saturating_sub(margin + 3).max(10));
    // Half blocks show two rows per line; plain text one.
    let per_line = if canvas.fancy { 2 } else { 1 };
    let shown_rows = rows.min(canvas.height.max(4) * 2 * per_line / 2);
    let cell = |row: usize, column: usize| -> Option<f64> {
        let (r0, r1) = (
            row * rows / shown_rows,
            ((row + 1) * rows / shown_rows).max(row * rows / shown_rows + 1),
        );
        let (c0, c1) = (
            column * columns / shown_columns,
            ((column + 1) * columns / shown_columns).max(column * columns / shown_columns + 1),
        );
        let mut sum = 0.0;
        let mut count = 0usize;
        for r in r0..r1.min(rows) {
            for c in c0..c1.min(columns) {
                let x = values[r * columns + c];
                if x.is_finite() {
                    sum += x;
                    count += 1;
                }
            }
        }
        (count > 0).then(|| {
            let mean = sum / count as f64;
            if high > low {
                (mean - low) / (high - low)
            } else {
                0.5
            }
        })
    };
    let mut lines = Vec::new();
    let mut row = 0;
    while row < shown_rows {
        let axis = if row == 0 {
            "0".to_string()
        } else if row + per_line >= shown_rows {
            (rows - 1).to_string()
        } else {
            String::new()
        };
        let mut text = String::new();
        for column in 0..shown_columns {
            if canvas.fancy {
                let upper = cell(row, column);
                let lower = if row + 1 < shown_rows {
                    cell(row + 1, column)
                } else {
                    None
                };
                match (upper, lower) {
                    (Some(u), Some(l)) => {
                        let (a, b) = (colour(u), colour(l));
                        text.push_str(&format!(
                            "\x1b[38;2;{};{};{}m\x1b[48;2;{};{};{}m▀",
                            a.0, a.1, a.2, b.0, b.1, b.2
                        ));
                    }
                    (Some(u), None) => {
                        let a = colour(u);
                        text.push_str(&format!("\x1b[49m\x1b[38;2;{};{};{}m▀", a.0, a.1, a.2));
                    }
                    _ => text.push_str("\x1b[0m "),
                }
            } else {
                let shade = cell(row, column).map_or(' ', |f| {
                    RAMP[((f * (RAMP.len() - 1) as f64).round() as usize).min(RAMP.len() - 1)]
                });
                text.push(shade);
            }
        }
        if canvas.fancy {
            text.push_str("\x1b[0m");
        }
        lines.push(format!("{axis:>margin$} │{text}"));
        row += per_line;
    }
    lines.push(format!("{:>margin$} └{}", "", "─".repeat(shown_columns)));
    let right = (columns - 1).to_string();
    lines.push(format!(
        "{:>margin$}  0{right:>width$}",
        "",
        width = shown_columns.saturating_sub(1)
    ));
    let scale = if canvas.fancy {
        (0..10)
            .map(|step| {
                let c = colour(step as f64 / 9.0);
                format!("\x1b[38;2;{};{};{}m█", c.0, c.1, c.2)
            })
            .collect::<String>()
            + "\x1b[0m"
    } else {
        RAMP.iter().collect::<String>().replace(' ', "·")
    };
    lines.push(format!(
        "{:>margin$}  {} {scale} {}   ({rows} × {columns}{})",
        "",
        label(low),
        label(high),
        if shown_rows < rows || shown_columns < columns {
            ", averaged to fit"
        } else {
            ""
        }
    ));
    Ok(lines.join("\n"))
}

/// A histogram of `values` in `bins` bins of equal width (about √n, at most 20): one line per
/// bin, its range, a bar and the count.
pub fn histogram(values: &[f64], canvas: Canvas) -> Result<String, String> {
    let (low, high) = range(values).ok_or("nothing to draw: no finite value")?;
    let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let bins = ((finite.len() as f64).sqrt().ceil() as usize).clamp(1, 20);
    let step = if high > low {
        (high - low) / bins as f64
    } else {
        1.0
    };
    let mut counts = vec![0usize; bins];
    for x in &finite {
        let bin = (((x - low) / step) as usize).min(bins - 1);
        counts[bin] += 1;
    }
    let labels: Vec<String> = (0..bins)
        .map(|bin| {
            let from = low + step * bin as f64;
            let to = low + step * (bin + 1) as f64;
            let close = if bin + 1 == bins { "]" } else { ")" };
            format!("[{}, {}{close}", label(from), label(to))
        })
        .collect();
    let label_width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let most = counts.iter().copied().max().unwrap_or(1).max(1);
    let count_width = most.to_string().len();
    let bar_room = canvas
        .width
        .saturating_sub(label_width + count_width + 4)
        .max(10);
    let lines: Vec<String> = labels
        .iter()
        .zip(&counts)
        .map(|(range_label, count)| {
            let length = count * bar_room / most;
            let bar = if canvas.fancy { "█" } else { "#" }.repeat(length);
            format!("{range_label:<label_width$} {count:>count_width$} {bar}")
        })
        .collect();
    Ok(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snapshot named without the crate (the book's test compiles this module too).
    fn snapshot(name: &str, text: &str) {
        let mut settings = insta::Settings::clone_current();
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| insta::assert_snapshot!(name, text));
    }

    fn plain(width: usize, height: usize) -> Canvas {
        Canvas {
            width,
            height,
            fancy: false,
        }
    }

    #[test]
    fn a_line_chart_in_plain_text_has_both_axes() {
        let values: Vec<f64> = (0..20).map(|i| i as f64).collect();
        let chart = line_chart(&values, plain(33, 4)).unwrap();
        snapshot("plot_line_chart_plain", &chart);
    }

    #[test]
    fn a_sine_wave_in_braille() {
        let values: Vec<f64> = (0..200)
            .map(|i| (i as f64 / 200.0 * std::f64::consts::TAU).sin())
            .collect();
        let chart = line_chart(
            &values,
            Canvas {
                width: 60,
                height: 8,
                fancy: true,
            },
        )
        .unwrap();
        snapshot("plot_sine_wave_braille", &chart);
    }

    #[test]
    fn a_heatmap_in_plain_text_shades_low_to_high() {
        let values: Vec<f64> = (0..36).map(|i| ((i / 6) + (i % 6)) as f64).collect();
        let map = heatmap(&values, 6, 6, plain(40, 8)).unwrap();
        snapshot("plot_heatmap_plain", &map);
    }

    #[test]
    fn a_histogram_counts_every_value() {
        let values: Vec<f64> = (0..100).map(|i| ((i * 37) % 100) as f64 / 10.0).collect();
        let text = histogram(&values, plain(50, 8)).unwrap();
        let total: usize = text
            .lines()
            .map(|line| {
                line.split_whitespace()
                    .nth(2)
                    .unwrap()
                    .parse::<usize>()
                    .unwrap()
            })
            .sum();
        assert_eq!(total, 100);
        snapshot("plot_histogram_plain", &text);
    }

    #[test]
    fn nothing_finite_is_an_error() {
        assert!(line_chart(&[f64::NAN], plain(40, 4)).is_err());
    }
}
