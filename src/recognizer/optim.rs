//! AdamW whose moment estimates can be saved and restored, so a resumed run
//! continues exactly where it stopped (candle-nn's AdamW keeps them private).

use std::collections::HashMap;

use candle_core::backprop::GradStore;
use candle_core::{Result, Tensor, Var};

#[derive(Debug, Clone, Copy)]
pub struct AdamWParams {
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
}

impl Default for AdamWParams {
    fn default() -> Self {
        AdamWParams {
            beta1: 0.9,
            beta2: 0.98,
            eps: 1e-8,
            weight_decay: 0.01,
        }
    }
}

struct Slot {
    name: String,
    var: Var,
    m: Tensor,
    v: Tensor,
}

pub struct AdamW {
    slots: Vec<Slot>,
    pub step: usize,
    params: AdamWParams,
}

impl AdamW {
    /// `vars` are (name, variable) pairs; names key the saved moments.
    pub fn new(mut vars: Vec<(String, Var)>, params: AdamWParams) -> Result<AdamW> {
        vars.sort_by(|a, b| a.0.cmp(&b.0));
        let slots = vars
            .into_iter()
            .map(|(name, var)| {
                let m = var.as_tensor().zeros_like()?;
                let v = var.as_tensor().zeros_like()?;
                Ok(Slot { name, var, m, v })
            })
            .collect::<Result<_>>()?;
        Ok(AdamW {
            slots,
            step: 0,
            params,
        })
    }

    /// Global L2 norm of the gradients.
    pub fn grad_norm(&self, grads: &GradStore) -> Result<f64> {
        let mut total = 0f64;
        for slot in &self.slots {
            if let Some(g) = grads.get(slot.var.as_tensor()) {
                total += g.sqr()?.sum_all()?.to_scalar::<f32>()? as f64;
            }
        }
        Ok(total.sqrt())
    }

    /// One update with learning rate `lr`, gradients scaled by `grad_scale`
    /// (for clipping).
    pub fn step(&mut self, grads: &GradStore, lr: f64, grad_scale: f64) -> Result<()> {
        self.step += 1;
        let p = self.params;
        let bias1 = 1.0 - p.beta1.powi(self.step as i32);
        let bias2 = 1.0 - p.beta2.powi(self.step as i32);
        for slot in &mut self.slots {
            let Some(g) = grads.get(slot.var.as_tensor()) else {
                continue;
            };
            // Detached: otherwise each moment keeps the op graph of its update, which
            // chains every step's whole backward graph together (a 23 GB leak after
            // 2900 steps, ended by the OOM killer).
            let g = (g.detach() * grad_scale)?;
            slot.m = ((&slot.m * p.beta1)? + (&g * (1.0 - p.beta1))?)?.detach();
            slot.v = ((&slot.v * p.beta2)? + (g.sqr()? * (1.0 - p.beta2))?)?.detach();
            let update = ((&slot.m / bias1)? / ((&slot.v / bias2)?.sqrt()? + p.eps)?)?;
            let theta = slot.var.as_tensor();
            let next = ((theta * (1.0 - lr * p.weight_decay))? - (update * lr)?)?;
            slot.var.set(&next)?;
        }
        Ok(())
    }

    /// Moments keyed `adam.m.<name>` / `adam.v.<name>`.
    pub fn state(&self) -> HashMap<String, Tensor> {
        let mut out = HashMap::new();
        for slot in &self.slots {
            out.insert(format!("adam.m.{}", slot.name), slot.m.clone());
            out.insert(format!("adam.v.{}", slot.name), slot.v.clone());
        }
        out
    }

    pub fn load_state(&mut self, state: &HashMap<String, Tensor>, step: usize) -> Result<()> {
        for slot in &mut self.slots {
            let (Some(m), Some(v)) = (
                state.get(&format!("adam.m.{}", slot.name)),
                state.get(&format!("adam.v.{}", slot.name)),
            ) else {
                candle_core::bail!("checkpoint lacks optimizer state for {}", slot.name);
            };
            slot.m = m.clone();
            slot.v = v.clone();
        }
        self.step = step;
        Ok(())
    }
}
