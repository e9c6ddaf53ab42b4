//! Procedural surfaces a card lies on: scanner glass and lid, desks, wood, cloth.

use image::RgbImage;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Smooth value noise: random values on a coarse grid, bilinearly interpolated.
pub struct ValueNoise {
    grid: Vec<f32>,
    cols: usize,
    rows: usize,
    cell: f32,
}

impl ValueNoise {
    pub fn new(width: u32, height: u32, cell: f32, rng: &mut ChaCha8Rng) -> ValueNoise {
        let cols = (width as f32 / cell).ceil() as usize + 2;
        let rows = (height as f32 / cell).ceil() as usize + 2;
        let grid = (0..cols * rows)
            .map(|_| rng.random_range(-1.0..1.0f32))
            .collect();
        ValueNoise {
            grid,
            cols,
            rows,
            cell,
        }
    }

    #[inline]
    pub fn at(&self, x: f32, y: f32) -> f32 {
        // Wrap around so any coordinate (rotated, scaled, negative) stays on the grid.
        let gx = (x / self.cell).rem_euclid((self.cols - 1) as f32);
        let gy = (y / self.cell).rem_euclid((self.rows - 1) as f32);
        let (ix, iy) = (
            (gx as usize).min(self.cols - 2),
            (gy as usize).min(self.rows - 2),
        );
        let (tx, ty) = (gx - ix as f32, gy - iy as f32);
        let (tx, ty) = (tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty));
        let g = |i: usize, j: usize| self.grid[j * self.cols + i];
        let top = g(ix, iy) * (1.0 - tx) + g(ix + 1, iy) * tx;
        let bottom = g(ix, iy + 1) * (1.0 - tx) + g(ix + 1, iy + 1) * tx;
        top * (1.0 - ty) + bottom * ty
    }
}

/// The kind of surface behind a photographed card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Surface {
    Wood,
    Cloth,
    Desk,
    Paper,
}

impl Surface {
    pub fn random(rng: &mut ChaCha8Rng) -> Surface {
        [Surface::Wood, Surface::Cloth, Surface::Desk, Surface::Paper][rng.random_range(0..4)]
    }
}

/// A `width`×`height` image of `surface`.
pub fn surface(surface: Surface, width: u32, height: u32, rng: &mut ChaCha8Rng) -> RgbImage {
    let base: [f32; 3] = match surface {
        Surface::Wood => [
            rng.random_range(90.0..170.0),
            rng.random_range(55.0..110.0),
            rng.random_range(25.0..70.0),
        ],
        Surface::Cloth => {
            let v = rng.random_range(30.0..200.0);
            [
                v * rng.random_range(0.6..1.1),
                v * rng.random_range(0.6..1.1),
                v * rng.random_range(0.6..1.2),
            ]
        }
        Surface::Desk => {
            let v = rng.random_range(40.0..230.0);
            [
                v,
                v * rng.random_range(0.95..1.02),
                v * rng.random_range(0.9..1.05),
            ]
        }
        Surface::Paper => {
            let v = rng.random_range(200.0..250.0);
            [v, v, v * rng.random_range(0.92..1.0)]
        }
    };
    let scale = width.max(height) as f32 / 1000.0;
    let coarse = ValueNoise::new(width, height, 180.0 * scale, rng);
    let fine = ValueNoise::new(width, height, 7.0 * scale.max(0.3), rng);
    let grain_angle: f32 = rng.random_range(-0.3..0.3);
    let (ga_s, ga_c) = grain_angle.sin_cos();
    let ring_freq = rng.random_range(0.03..0.08) / scale;
    let weave = rng.random_range(3.0..6.0) * scale.max(0.4);
    let mut img = RgbImage::new(width, height);
    for (x, y, p) in img.enumerate_pixels_mut() {
        let (fx, fy) = (x as f32, y as f32);
        let shade = match surface {
            Surface::Wood => {
                let u = fx * ga_c + fy * ga_s;
                let v = -fx * ga_s + fy * ga_c;
                let rings = (v * ring_freq + 6.0 * coarse.at(u * 0.2, v)).sin();
                0.85 + 0.12 * rings + 0.05 * fine.at(u * 0.1, v * 2.0)
            }
            Surface::Cloth => {
                let threads = ((fx / weave).sin() * (fy / weave).sin()).abs();
                0.85 + 0.12 * threads + 0.08 * coarse.at(fx, fy)
            }
            Surface::Desk => 0.95 + 0.06 * coarse.at(fx, fy) + 0.03 * fine.at(fx, fy),
            Surface::Paper => 0.97 + 0.03 * coarse.at(fx, fy) + 0.015 * fine.at(fx, fy),
        };
        p.0 = base.map(|c| (c * shade).clamp(0.0, 255.0) as u8);
    }
    img
}
