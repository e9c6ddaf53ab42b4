//! A phone photo's light: brighter towards one side of the picture, and a glare
//! spot where a lamp shines off the card's laminate. Drawn for the photo capture,
//! and by the classifier's trainer to relight the cards it rectifies.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::synth::degrade::uniform;

/// Light falling off from one side of a picture to the other.
#[derive(Debug, Clone, Copy)]
pub struct Slope {
    dark: f32,
    bright: f32,
    sin: f32,
    cos: f32,
}

impl Slope {
    pub fn draw(rng: &mut ChaCha8Rng) -> Slope {
        let dark = uniform(rng, 0.55, 0.92);
        let bright = uniform(rng, 0.95, 1.08);
        let (sin, cos) = uniform(rng, 0.0, std::f32::consts::TAU).sin_cos();
        Slope {
            dark,
            bright,
            sin,
            cos,
        }
    }

    /// The darkest and the brightest light.
    pub fn range(&self) -> [f32; 2] {
        [self.dark, self.bright]
    }

    /// The light at `(fx, fy)`: the point's offset from the picture's centre, as a
    /// share of its width and of its height.
    pub fn at(&self, fx: f32, fy: f32) -> f32 {
        let t = (fx * self.cos + fy * self.sin + 0.7) / 1.4;
        self.dark + (self.bright - self.dark) * t.clamp(0.0, 1.0)
    }
}

/// A glare spot: brightness added about a point, fading over its radius.
#[derive(Debug, Clone, Copy)]
pub struct Glare {
    pub x: f32,
    pub y: f32,
    pub radius: f32,
    /// Brightness added at the centre, as a share of full white.
    pub strength: f32,
}

impl Glare {
    /// Six pictures in ten have one, somewhere on the card: `on_card` maps a point
    /// of the card (shares of its width and height) into the picture, where the
    /// card is `card_width` pixels wide.
    pub fn draw(
        rng: &mut ChaCha8Rng,
        on_card: impl FnOnce(f32, f32) -> (f32, f32),
        card_width: f32,
    ) -> Option<Glare> {
        rng.random_bool(0.6).then(|| {
            let (u, v) = (uniform(rng, 0.1, 0.9), uniform(rng, 0.1, 0.9));
            let (x, y) = on_card(u, v);
            Glare {
                x,
                y,
                radius: uniform(rng, 0.06, 0.22) * card_width,
                strength: uniform(rng, 0.35, 0.9),
            }
        })
    }

    /// Grey levels added at `(x, y)`.
    pub fn at(&self, x: f32, y: f32) -> f32 {
        let d2 = ((x - self.x).powi(2) + (y - self.y).powi(2)) / (self.radius * self.radius);
        255.0 * self.strength * (-d2 * 2.0).exp()
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn a_slope_stays_within_its_range_and_rises_along_its_direction() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..50 {
            let slope = Slope::draw(&mut rng);
            let [dark, bright] = slope.range();
            assert!(dark < bright);
            for (fx, fy) in [
                (-0.5, -0.5),
                (0.5, -0.5),
                (0.0, 0.0),
                (-0.5, 0.5),
                (0.5, 0.5),
            ] {
                let light = slope.at(fx, fy);
                assert!(
                    (dark..=bright).contains(&light),
                    "{light} outside {dark}..{bright}"
                );
            }
            // A step along the slope's direction never darkens.
            let (a, b) = (
                slope.at(-0.1 * slope.cos, -0.1 * slope.sin),
                slope.at(0.1 * slope.cos, 0.1 * slope.sin),
            );
            assert!(b >= a, "{a} then {b}");
        }
    }

    #[test]
    fn a_glare_lies_on_the_card_and_fades_over_its_radius() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let glares: Vec<Glare> = (0..100)
            .filter_map(|_| {
                Glare::draw(
                    &mut rng,
                    |u, v| (200.0 + 400.0 * u, 100.0 + 250.0 * v),
                    400.0,
                )
            })
            .collect();
        assert!(
            (40..=80).contains(&glares.len()),
            "{} glares in 100",
            glares.len()
        );
        for g in glares {
            assert!((240.0..=560.0).contains(&g.x) && (125.0..=325.0).contains(&g.y));
            let centre = g.at(g.x, g.y);
            assert!((0.35 * 255.0..=0.9 * 255.0).contains(&centre));
            assert!(g.at(g.x + 0.5 * g.radius, g.y) < centre);
            assert!(g.at(g.x, g.y + 2.0 * g.radius) < 0.001 * centre);
        }
    }
}
