//! SVG charts of the benchmark tables (plotters, SVG backend only): grouped bars for most
//! tables, and a line over buffer sizes for stdio (the book's figure 3.6).

use plotters::prelude::*;

/// One series of a bar chart: its name and a value per group (None where it did not run).
pub struct Series {
    pub name: String,
    pub values: Vec<Option<f64>>,
}

/// One series per name (the k-th name's series is `value(row, k)` for every row).
pub fn series<R>(
    names: impl IntoIterator<Item = String>,
    rows: &[R],
    value: impl Fn(&R, usize) -> Option<f64>,
) -> Vec<Series> {
    names
        .into_iter()
        .enumerate()
        .map(|(k, name)| Series { name, values: rows.iter().map(|r| value(r, k)).collect() })
        .collect()
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Grouped bars: one group per label, one bar per series; a log scale when values span
/// more than two orders of magnitude.
pub fn bars(
    path: &std::path::Path,
    title: &str,
    y_desc: &str,
    groups: &[String],
    series: &[Series],
) -> Result<(), String> {
    let values: Vec<f64> =
        series.iter().flat_map(|s| s.values.iter().flatten().copied()).filter(|v| *v > 0.0).collect();
    let (Some(max), Some(min)) = (values.iter().copied().reduce(f64::max), values.iter().copied().reduce(f64::min))
    else {
        return Ok(());
    };
    let root = SVGBackend::new(path, (1100, 620)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    // Group i is centred on x = i, so the axis ticks at whole numbers name the groups.
    let n = groups.len().max(1) as f64;
    let width = 0.8 / series.len().max(1) as f64;
    let labels = groups.to_vec();
    let formatter = move |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 {
            labels.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let log = max / min > 100.0;
    let mut builder = ChartBuilder::on(&root);
    builder.caption(title, ("sans-serif", 22)).margin(12).x_label_area_size(60).y_label_area_size(80);
    macro_rules! draw {
        ($chart:expr, $base:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(groups.len())
                .x_label_formatter(&formatter)
                .y_desc(y_desc)
                .draw()
                .map_err(|e| e.to_string())?;
            for (k, s) in series.iter().enumerate() {
                let color = COLORS[k % COLORS.len()];
                chart
                    .draw_series(s.values.iter().enumerate().filter_map(|(i, v)| {
                        let v = (*v)?.max($base);
                        let x0 = i as f64 - 0.4 + k as f64 * width;
                        Some(Rectangle::new([(x0, $base), (x0 + width * 0.95, v)], color.filled()))
                    }))
                    .map_err(|e| e.to_string())?
                    .label(s.name.clone())
                    .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(|e| e.to_string())?;
        }};
    }
    if log {
        let base = min / 2.0;
        draw!(
            builder.build_cartesian_2d(-0.5f64..n - 0.5, (base..max * 2.0).log_scale()).map_err(|e| e.to_string())?,
            base
        );
    } else {
        draw!(builder.build_cartesian_2d(-0.5f64..n - 0.5, 0f64..max * 1.1).map_err(|e| e.to_string())?, 0.0);
    }
    root.present().map_err(|e| e.to_string())
}

/// A line of (x, y) points on log-log axes (stdio: clock seconds against BUFFSIZE).
pub fn loglog(
    path: &std::path::Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    points: &[(f64, f64)],
) -> Result<(), String> {
    let pts: Vec<(f64, f64)> = points.iter().copied().filter(|(x, y)| *x > 0.0 && *y > 0.0).collect();
    if pts.len() < 2 {
        return Ok(());
    }
    let (xmin, xmax) = pts.iter().fold((f64::MAX, 0f64), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (ymin, ymax) = pts.iter().fold((f64::MAX, 0f64), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let root = SVGBackend::new(path, (1000, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d((xmin / 1.5..xmax * 1.5).log_scale(), (ymin / 1.5..ymax * 1.5).log_scale())
        .map_err(|e| e.to_string())?;
    chart.configure_mesh().x_desc(x_desc).y_desc(y_desc).draw().map_err(|e| e.to_string())?;
    chart.draw_series(LineSeries::new(pts.iter().copied(), COLORS[0].stroke_width(2))).map_err(|e| e.to_string())?;
    chart.draw_series(pts.iter().map(|p| Circle::new(*p, 4, COLORS[0].filled()))).map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}
