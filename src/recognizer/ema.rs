//! An exponential moving average of the trained weights (Polyak averaging): the
//! export of a run that keeps one is the average, which smooths the noise that
//! small batches and a fresh optimizer put into the last steps' weights.

use std::collections::HashMap;

use candle_core::{Result, Tensor, Var};

pub struct WeightAverage {
    decay: f64,
    slots: Vec<Slot>,
    updates: usize,
}

struct Slot {
    name: String,
    var: Var,
    average: Tensor,
}

/// Checkpoint key of a variable's average.
fn key(name: &str) -> String {
    format!("ema.{name}")
}

impl WeightAverage {
    /// Starts every average at the variable's current value. `decay` in (0, 1): the
    /// average spans about `1 / (1 - decay)` steps.
    pub fn new(vars: &[(String, Var)], decay: f64) -> Result<WeightAverage> {
        if decay.is_nan() || decay <= 0.0 || decay >= 1.0 {
            candle_core::bail!("an average's decay must lie in (0, 1), not {decay}");
        }
        let slots = vars
            .iter()
            .map(|(name, var)| {
                Ok(Slot {
                    name: name.clone(),
                    var: var.clone(),
                    average: var.as_tensor().detach().copy()?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(WeightAverage {
            decay,
            slots,
            updates: 0,
        })
    }

    /// The decay of the next update: short at first, so an average started on random
    /// weights soon forgets them (`(1 + n) / (10 + n)` after `n` updates).
    fn next_decay(&self) -> f64 {
        let n = self.updates as f64;
        self.decay.min((1.0 + n) / (10.0 + n))
    }

    /// Moves every average towards its variable's value after an optimizer step.
    pub fn update(&mut self) -> Result<()> {
        let decay = self.next_decay();
        for slot in &mut self.slots {
            let current = slot.var.as_tensor().detach();
            slot.average = ((&slot.average * decay)? + (current * (1.0 - decay))?)?.detach();
        }
        self.updates += 1;
        Ok(())
    }

    /// The averaged weights, keyed by variable name (what an export writes).
    pub fn weights(&self) -> HashMap<String, Tensor> {
        self.slots
            .iter()
            .map(|s| (s.name.clone(), s.average.clone()))
            .collect()
    }

    /// The averages keyed `ema.<name>`, for a checkpoint.
    pub fn state(&self) -> HashMap<String, Tensor> {
        self.slots
            .iter()
            .map(|s| (key(&s.name), s.average.clone()))
            .collect()
    }

    /// Restores the averages a checkpoint holds; returns false (keeping averages that
    /// start at the current weights) when it holds none, as from a run without one.
    pub fn load_state(&mut self, state: &HashMap<String, Tensor>, updates: usize) -> Result<bool> {
        if !self.slots.iter().all(|s| state.contains_key(&key(&s.name))) {
            return Ok(false);
        }
        for slot in &mut self.slots {
            slot.average = state[&key(&slot.name)].to_dtype(slot.var.dtype())?;
        }
        self.updates = updates;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    fn var(values: &[f32]) -> (String, Var) {
        let var = Var::from_slice(values, values.len(), &Device::Cpu).unwrap();
        ("w".to_owned(), var)
    }

    fn average(ema: &WeightAverage) -> Vec<f32> {
        ema.weights()["w"].to_vec1().unwrap()
    }

    #[test]
    fn the_average_follows_the_weights_by_its_decay() {
        let (name, w) = var(&[0.0, 10.0]);
        let mut ema = WeightAverage::new(&[(name, w.clone())], 0.5).unwrap();
        ema.updates = 100; // past the short start: the decay is 0.5
        w.set(&Tensor::new(&[4.0f32, 2.0], &Device::Cpu).unwrap())
            .unwrap();
        ema.update().unwrap();
        assert_eq!(average(&ema), vec![2.0, 6.0]);
        ema.update().unwrap();
        assert_eq!(average(&ema), vec![3.0, 4.0]);
    }

    #[test]
    fn an_average_begun_on_random_weights_forgets_them_quickly() {
        let (name, w) = var(&[100.0]);
        let mut ema = WeightAverage::new(&[(name, w.clone())], 0.999).unwrap();
        w.set(&Tensor::new(&[0.0f32], &Device::Cpu).unwrap())
            .unwrap();
        for _ in 0..50 {
            ema.update().unwrap();
        }
        // With 0.999 from the start, 95 would be left.
        assert!(average(&ema)[0] < 1.0, "{:?}", average(&ema));
    }

    #[test]
    fn a_checkpoint_restores_the_average_and_one_without_it_starts_afresh() {
        let (name, w) = var(&[1.0, 2.0]);
        let vars = [(name, w.clone())];
        let mut ema = WeightAverage::new(&vars, 0.9).unwrap();
        w.set(&Tensor::new(&[5.0f32, 5.0], &Device::Cpu).unwrap())
            .unwrap();
        ema.update().unwrap();
        let saved = ema.state();
        assert!(saved.contains_key("ema.w"));

        let mut resumed = WeightAverage::new(&vars, 0.9).unwrap();
        assert!(resumed.load_state(&saved, 1).unwrap());
        assert_eq!(average(&resumed), average(&ema));
        assert_eq!(resumed.next_decay(), ema.next_decay());

        let mut fresh = WeightAverage::new(&vars, 0.9).unwrap();
        assert!(!fresh.load_state(&HashMap::new(), 1).unwrap());
        assert_eq!(average(&fresh), vec![5.0, 5.0]);
    }

    #[test]
    fn a_decay_outside_zero_to_one_is_refused() {
        for decay in [0.0, 1.0, -0.5, 1.5] {
            assert!(WeightAverage::new(&[var(&[1.0])], decay).is_err());
        }
    }
}
