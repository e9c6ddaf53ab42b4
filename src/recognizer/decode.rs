//! Batched greedy and beam-search decoding with the decoder's key-value cache.
//! Every reading carries per-character probabilities and, from beam search, the
//! runner-up transcripts (the national-ID check digit picks among them).

use candle_core::{D, Tensor};
use serde::Serialize;

use super::bidi::{logical_order, visual_order};
use super::calibration::Calibration;
use super::ctc;
use super::model::{DecoderCache, LineModel};
use super::preprocess::ImageBatch;
use super::vocab::{BOS, EOS, PAD, UNK, Vocab};

/// How to decode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecodeOptions {
    /// 1 decodes greedily; more keeps that many hypotheses per crop.
    pub beam_width: usize,
    /// How many runner-up transcripts to return (at most `beam_width - 1`, plus
    /// the CTC reading when rescoring adds it).
    pub alternatives: usize,
    /// Joint CTC/attention rescoring with the CTC head weighted this much (the
    /// decoder `1 -` it): the CTC head's reading joins the decoder's hypotheses and
    /// all are ranked by the weighted mean of both models' log-probabilities.
    /// Catches the decoder's typical failures (repeats, early stops). `None` ranks
    /// by the decoder alone.
    pub ctc_rescoring: Option<f32>,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            beam_width: 1,
            alternatives: 0,
            ctc_rescoring: Some(CTC_WEIGHT),
        }
    }
}

/// The CTC head's default weight in joint rescoring. Tuned with the run-9 model,
/// beam 3, on the tuning crops (1,000 generated lines of seed 4246, the pipeline's
/// 2,085 scan and 1,944 photo crops of seeds 4243 and 4245): lines read wrong at
/// 0.5: 643, 0.4: 635, 0.3: 627, 0.2: 628. At an equal say the CTC head, which
/// tends to merge a doubled letter into one, outvoted a decoder that read
/// `ممدوح` and `السقايين` right. The cost is in long MRZ lines, where the decoder
/// loses its place more often than the CTC head: Latin lines of seed 4246 read
/// wrong 1 at 0.5, 3 at 0.3 and 5 at 0.2 (of 172).
pub const CTC_WEIGHT: f32 = 0.3;

impl DecodeOptions {
    pub fn greedy() -> DecodeOptions {
        DecodeOptions::default()
    }

    pub fn beam(width: usize) -> DecodeOptions {
        DecodeOptions {
            beam_width: width.max(1),
            alternatives: width.max(1) - 1,
            ..DecodeOptions::default()
        }
    }
}

/// One transcript hypothesis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hypothesis {
    pub text: String,
    /// Probability of each character of `text`, in order.
    pub char_probs: Vec<f32>,
    /// Natural log of the probability of the whole transcript, end token included:
    /// the decoder's, or with CTC rescoring the weighted mean of the decoder's and
    /// the CTC head's.
    pub log_prob: f32,
    /// Probability that the transcript is right, in 0..=1: `exp(log_prob)`, or the
    /// model's [`Calibration`] of it.
    pub confidence: f32,
    /// Per character of `text`, the characters the decoder weighed next most likely
    /// there.
    #[serde(skip)]
    pub rivals: Vec<Rivals>,
}

/// How many runner-up characters each position of a transcript keeps.
const RIVALS: usize = 2;

/// The runner-up characters at one position of a transcript, most likely first,
/// each with its probability relative to the character read there (at most 1 for
/// greedy decoding; a beam hypothesis may have kept a less likely character): what a
/// hypothesis differing only there would be worth against the one read, as the
/// decoder saw that step. A field's rules (the national ID's check digit) try them.
pub type Rivals = Vec<(char, f32)>;

impl Hypothesis {
    fn calibrate(&mut self, calibration: &Calibration) {
        self.confidence = calibration.of_transcript(self.log_prob, &self.text);
    }
}

/// What the recognizer read on one crop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reading {
    /// The likeliest transcript (in logical, storage order), its per-character
    /// probabilities, confidence and rivals; serialised as the reading's own fields.
    #[serde(flatten)]
    pub best: Hypothesis,
    /// Runner-up transcripts from beam search, most likely first.
    pub alternatives: Vec<Hypothesis>,
    /// The CTC head's reading of the same crop: an independent second opinion.
    pub ctc_text: String,
}

impl Reading {
    /// Replaces the raw probabilities of the reading and its alternatives by
    /// `calibration`'s.
    pub fn calibrate(&mut self, calibration: &Calibration) {
        self.best.calibrate(calibration);
        for h in &mut self.alternatives {
            h.calibrate(calibration);
        }
    }

    /// A reading of `text` alone with `confidence`, every character as sure (tests).
    #[cfg(test)]
    pub(crate) fn of_text(text: &str, confidence: f32) -> Reading {
        let chars = text.chars().count();
        Reading {
            best: Hypothesis {
                text: text.into(),
                char_probs: vec![confidence.powf(1.0 / chars.max(1) as f32); chars],
                confidence,
                log_prob: confidence.ln(),
                rivals: vec![Vec::new(); chars],
            },
            alternatives: Vec::new(),
            ctc_text: String::new(),
        }
    }
}

/// A hypothesis under construction (empty by default).
#[derive(Debug, Clone, Default)]
struct Partial {
    tokens: Vec<u32>,
    probs: Vec<f32>,
    /// Per token, its runner-up tokens and their probabilities relative to it (zero
    /// where the row had fewer).
    rivals: Vec<[(u32, f32); RIVALS]>,
    log_prob: f32,
}

impl Partial {
    /// Appends `token`, chosen from the step's log-probabilities `row`; the
    /// transcript's score is the caller's to update.
    fn push(&mut self, token: u32, row: &[f32]) {
        let chosen = row[token as usize];
        let mut rivals = [(EOS, 0.0); RIVALS];
        let others = top_k(row, RIVALS + 1)
            .into_iter()
            .filter(|&(t, _)| t != token);
        for (slot, (t, lp)) in rivals.iter_mut().zip(others) {
            *slot = (t, (lp - chosen).exp());
        }
        self.tokens.push(token);
        self.probs.push(chosen.exp());
        self.rivals.push(rivals);
    }

    fn finish(self, vocab: &Vocab) -> Hypothesis {
        let rivals = self
            .rivals
            .iter()
            .map(|position| {
                position
                    .iter()
                    .filter(|&&(_, p)| p > 0.0)
                    .filter_map(|&(t, p)| Some((vocab.char_of(t)?, p)))
                    .collect()
            })
            .collect();
        Hypothesis {
            text: vocab.decode(&self.tokens),
            char_probs: self.probs,
            log_prob: self.log_prob,
            confidence: self.log_prob.exp(),
            rivals,
        }
    }
}

/// Reads every crop of `batch`.
pub fn decode(
    model: &LineModel,
    vocab: &Vocab,
    batch: &ImageBatch,
    options: DecodeOptions,
) -> candle_core::Result<Vec<Reading>> {
    let memory = model.encode(batch)?;
    let ctc = ctc_readings(model, vocab, batch, &memory)?;
    let mut hyps = if options.beam_width <= 1 {
        greedy(model, batch, &memory)?
            .into_iter()
            .map(|p| vec![p])
            .collect()
    } else {
        beam(model, batch, &memory, options.beam_width)?
    };
    let mut extra = 0;
    if let Some(ctc_weight) = options.ctc_rescoring {
        rescore(model, vocab, batch, &memory, &ctc, ctc_weight, &mut hyps)?;
        extra = 1;
    }
    Ok(hyps
        .into_iter()
        .zip(ctc)
        .map(|(mut ranked, ctc)| {
            let alternatives = ranked
                .drain(1..)
                .take(options.alternatives + extra)
                .map(|p| p.finish(vocab))
                .collect();
            let best = ranked
                .pop()
                .expect("every crop has a hypothesis")
                .finish(vocab);
            Reading {
                best,
                alternatives,
                ctc_text: vocab.decode(&ctc.logical),
            }
        })
        .collect())
}

/// The CTC head's view of one crop.
struct CtcOutput {
    /// Best-path tokens, visual order as the head emits them.
    visual: Vec<u32>,
    /// The same reading in logical order, comparable with the decoder's.
    logical: Vec<u32>,
    /// Frame log-probabilities, frames x vocab.
    logp: Vec<f32>,
}

fn ctc_readings(
    model: &LineModel,
    vocab: &Vocab,
    batch: &ImageBatch,
    memory: &Tensor,
) -> candle_core::Result<Vec<CtcOutput>> {
    let logp =
        candle_nn::ops::log_softmax(&model.ctc_logits(memory)?, D::Minus1)?.to_vec3::<f32>()?;
    let v = model.config.vocab_size;
    Ok(logp
        .iter()
        .zip(&batch.token_lengths)
        .map(|(rows, &frames)| {
            let flat: Vec<f32> = rows[..frames].iter().flatten().copied().collect();
            // Specials are never CTC targets; drop any an undertrained head emits.
            let visual: Vec<u32> = ctc::greedy(&flat, frames, v)
                .0
                .into_iter()
                .filter(|&t| t > UNK)
                .collect();
            let logical = vocab.encode(&logical_order(&vocab.decode(&visual)));
            CtcOutput {
                visual,
                logical,
                logp: flat,
            }
        })
        .collect())
}

/// Joint CTC/attention rescoring (Watanabe et al., 2017): adds the CTC reading to
/// each crop's hypotheses (scored by the decoder, teacher-forced), then ranks every
/// hypothesis by the weighted mean of its decoder and CTC log-probabilities (CTC
/// weighted `ctc_weight`). A hypothesis the CTC head cannot align keeps its decoder
/// score.
fn rescore(
    model: &LineModel,
    vocab: &Vocab,
    batch: &ImageBatch,
    memory: &Tensor,
    ctc: &[CtcOutput],
    ctc_weight: f32,
    hyps: &mut [Vec<Partial>],
) -> candle_core::Result<()> {
    let v = model.config.vocab_size;
    let max_chars = model.config.max_len - 1;
    // Crops whose CTC reading is not among the decoder's hypotheses.
    let missing: Vec<usize> = (0..hyps.len())
        .filter(|&i| {
            let tokens = &ctc[i].logical;
            tokens.len() <= max_chars && !hyps[i].iter().any(|p| &p.tokens == tokens)
        })
        .collect();
    if !missing.is_empty() {
        let device = memory.device();
        let rows = Tensor::new(
            missing
                .iter()
                .map(|&i| i as u32)
                .collect::<Vec<_>>()
                .as_slice(),
            device,
        )?;
        let mem = memory.index_select(&rows, 0)?;
        let mask = batch.key_mask.index_select(&rows, 0)?;
        let l = missing
            .iter()
            .map(|&i| ctc[i].logical.len() + 1)
            .max()
            .unwrap_or(1);
        let mut input = vec![PAD; missing.len() * l];
        for (r, &i) in missing.iter().enumerate() {
            input[r * l] = BOS;
            input[r * l + 1..r * l + 1 + ctc[i].logical.len()].copy_from_slice(&ctc[i].logical);
        }
        let input = Tensor::from_vec(input, (missing.len(), l), device)?;
        let logits = model.decoder.forward(&input, &mem, &mask, model.kernels)?;
        let logp = candle_nn::ops::log_softmax(&logits, D::Minus1)?.to_vec3::<f32>()?;
        for (r, &i) in missing.iter().enumerate() {
            let mut forced = Partial::default();
            for (t, &k) in ctc[i].logical.iter().enumerate() {
                forced.push(k, &logp[r][t]);
                forced.log_prob += logp[r][t][k as usize];
            }
            forced.log_prob += logp[r][forced.tokens.len()][EOS as usize];
            hyps[i].push(forced);
        }
    }
    for (i, ranked) in hyps.iter_mut().enumerate() {
        let frames = batch.token_lengths[i];
        for p in ranked.iter_mut() {
            let visual = if p.tokens == ctc[i].logical {
                ctc[i].visual.clone()
            } else {
                vocab.encode(&visual_order(&vocab.decode(&p.tokens)))
            };
            if let Some(nll) = ctc::nll(&ctc[i].logp, frames, v, &visual) {
                p.log_prob = (1.0 - ctc_weight) * p.log_prob - ctc_weight * nll as f32;
            }
        }
        ranked.sort_by(|a, b| b.log_prob.total_cmp(&a.log_prob));
    }
    Ok(())
}

/// Batched greedy decoding; finished crops leave the batch so the rest run faster.
fn greedy(
    model: &LineModel,
    batch: &ImageBatch,
    memory: &Tensor,
) -> candle_core::Result<Vec<Partial>> {
    let b = batch.token_lengths.len();
    let mut cache = model
        .decoder
        .start(memory, &batch.key_mask, model.kernels)?;
    let mut partials = vec![Partial::default(); b];
    // Row r of the running batch decodes crop active[r].
    let mut active: Vec<usize> = (0..b).collect();
    let mut last = vec![BOS; b];
    for position in 0..model.decoder.max_len() {
        let logp = step_log_probs(model, &mut cache, &last)?;
        let forced_end = position + 1 == model.decoder.max_len();
        let mut keep = Vec::with_capacity(active.len());
        let mut next = Vec::with_capacity(active.len());
        for (row, &item) in active.iter().enumerate() {
            let (token, lp) = if forced_end {
                (EOS, logp[row][EOS as usize])
            } else {
                argmax(&logp[row])
            };
            let p = &mut partials[item];
            p.log_prob += lp;
            if token == EOS {
                continue;
            }
            p.push(token, &logp[row]);
            keep.push(row as u32);
            next.push(token);
        }
        if keep.is_empty() {
            break;
        }
        if keep.len() < active.len() {
            cache.select_rows(&keep)?;
            active = keep.iter().map(|&r| active[r as usize]).collect();
        }
        last = next;
    }
    Ok(partials)
}

/// One decoder step from each row's last token: log-probabilities [rows][vocab].
fn step_log_probs(
    model: &LineModel,
    cache: &mut DecoderCache,
    last: &[u32],
) -> candle_core::Result<Vec<Vec<f32>>> {
    let last = Tensor::new(last, cache.device())?;
    character_log_probs(&model.decoder.step(&last, cache, model.kernels)?)
}
/// Log-probabilities [B, vocab] with the specials the decoder must never emit
/// (padding, start, unknown) ruled out; EOS stays.
fn character_log_probs(logits: &Tensor) -> candle_core::Result<Vec<Vec<f32>>> {
    let mut logp = candle_nn::ops::log_softmax(logits, D::Minus1)?.to_vec2::<f32>()?;
    for row in &mut logp {
        for id in [PAD, BOS, UNK] {
            row[id as usize] = f32::NEG_INFINITY;
        }
    }
    Ok(logp)
}

fn argmax(row: &[f32]) -> (u32, f32) {
    row.iter()
        .enumerate()
        .fold((0u32, f32::NEG_INFINITY), |acc, (i, &l)| {
            if l > acc.1 { (i as u32, l) } else { acc }
        })
}

/// Indices of the `k` largest values of `row`, largest first.
fn top_k(row: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut best: Vec<(u32, f32)> = Vec::with_capacity(k + 1);
    for (i, &l) in row.iter().enumerate() {
        if best.len() < k || l > best[best.len() - 1].1 {
            let at = best.partition_point(|&(_, b)| b >= l);
            best.insert(at, (i as u32, l));
            best.truncate(k);
        }
    }
    best
}

/// Batched beam search: every crop keeps `width` hypotheses; all live hypotheses
/// of all crops run as one decoder batch. Returns per crop its finished
/// hypotheses, most likely first.
fn beam(
    model: &LineModel,
    batch: &ImageBatch,
    memory: &Tensor,
    width: usize,
) -> candle_core::Result<Vec<Vec<Partial>>> {
    let b = batch.token_lengths.len();
    let mut cache = model
        .decoder
        .start(memory, &batch.key_mask, model.kernels)?;
    let mut finished: Vec<Vec<Partial>> = vec![Vec::new(); b];
    // Live hypotheses: (crop, partial), grouped by crop; row r of the cache is live[r].
    let mut live: Vec<(usize, Partial)> = (0..b).map(|i| (i, Partial::default())).collect();
    let mut last = vec![BOS; b];
    for position in 0..model.decoder.max_len() {
        let logp = step_log_probs(model, &mut cache, &last)?;
        let forced_end = position + 1 == model.decoder.max_len();
        let mut next_live: Vec<(usize, Partial)> = Vec::new();
        let mut rows: Vec<u32> = Vec::new();
        let mut start = 0;
        while start < live.len() {
            let item = live[start].0;
            let end = start + live[start..].iter().take_while(|(i, _)| *i == item).count();
            // Candidate extensions of this crop's hypotheses: (score, row, token).
            let mut candidates: Vec<(f32, usize, u32)> = Vec::new();
            for (row, (_, p)) in live.iter().enumerate().take(end).skip(start) {
                let options = if forced_end {
                    vec![(EOS, logp[row][EOS as usize])]
                } else {
                    top_k(&logp[row], width)
                };
                candidates.extend(options.into_iter().map(|(t, lp)| (p.log_prob + lp, row, t)));
            }
            candidates.sort_by(|a, b| b.0.total_cmp(&a.0));
            for (score, row, token) in candidates.into_iter().take(width) {
                let mut p = live[row].1.clone();
                p.log_prob = score;
                if token == EOS {
                    finished[item].push(p);
                } else {
                    p.push(token, &logp[row]);
                    next_live.push((item, p));
                    rows.push(row as u32);
                }
            }
            // Scores only fall, so once `width` finished hypotheses beat every live
            // one this crop is done.
            finished[item].sort_by(|a, b| b.log_prob.total_cmp(&a.log_prob));
            if finished[item].len() >= width {
                let bar = finished[item][width - 1].log_prob;
                let n = next_live.len();
                let first_of_item = next_live.iter().position(|(i, _)| *i == item).unwrap_or(n);
                if next_live[first_of_item..]
                    .iter()
                    .all(|(_, p)| p.log_prob <= bar)
                {
                    next_live.truncate(first_of_item);
                    rows.truncate(first_of_item);
                }
            }
            start = end;
        }
        if next_live.is_empty() {
            break;
        }
        cache.select_rows(&rows)?;
        last = next_live
            .iter()
            .map(|(_, p)| *p.tokens.last().expect("live hypotheses have a token"))
            .collect();
        live = next_live;
    }
    for f in &mut finished {
        f.sort_by(|a, b| b.log_prob.total_cmp(&a.log_prob));
        f.truncate(width);
    }
    Ok(finished)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizer::model::Kernels;
    use crate::recognizer::preprocess::{LineInput, prepare};
    use crate::recognizer::train::tests::{bar_crop, tiny_config};
    use candle_core::{DType, Device};
    use candle_nn::{VarBuilder, VarMap};

    fn models() -> (LineModel, LineModel, Vocab) {
        let vocab = Vocab::default_arabic_latin();
        let cfg = tiny_config(&vocab);
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let slow = LineModel::new(&cfg, vb.clone(), Kernels::Differentiable).unwrap();
        let fused = LineModel::new(&cfg, vb, Kernels::Fused).unwrap();
        (slow, fused, vocab)
    }

    fn inputs(model: &LineModel) -> Vec<LineInput> {
        ["٣٠١١", "AB12", "مصر الجديدة", "P<EGY"]
            .iter()
            .map(|t| prepare(&bar_crop(t), &model.config))
            .collect()
    }

    /// The batch of the given inputs, in order.
    fn batch_of<'a>(
        inputs: impl IntoIterator<Item = &'a LineInput>,
        model: &LineModel,
    ) -> ImageBatch {
        let inputs: Vec<&LineInput> = inputs.into_iter().collect();
        ImageBatch::new(&inputs, &model.config, &Device::Cpu).unwrap()
    }

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b)
            .unwrap()
            .abs()
            .unwrap()
            .flatten_all()
            .unwrap()
            .max(0)
            .unwrap()
            .to_scalar::<f32>()
            .unwrap()
    }

    #[test]
    fn fused_and_differentiable_kernels_agree() {
        let (slow, fused, _) = models();
        let inputs = inputs(&slow);
        let batch = batch_of(&inputs, &slow);
        let (m_slow, m_fused) = (slow.encode(&batch).unwrap(), fused.encode(&batch).unwrap());
        assert!(max_diff(&m_slow, &m_fused) < 1e-4);
        let tokens = Tensor::new(
            &[
                [BOS, 5, 6, 7],
                [BOS, 9, 9, 9],
                [BOS, 40, 41, 42],
                [BOS, 3, 4, 5],
            ],
            &Device::Cpu,
        )
        .unwrap();
        let l_slow = slow.decoder_logits(&tokens, &m_slow, &batch).unwrap();
        let l_fused = fused.decoder_logits(&tokens, &m_fused, &batch).unwrap();
        assert!(max_diff(&l_slow, &l_fused) < 1e-3);
    }

    #[test]
    fn cached_greedy_decoding_matches_the_full_forward_pass() {
        let (_, model, _) = models();
        let inputs = inputs(&model);
        let batch = batch_of(&inputs, &model);
        let memory = model.encode(&batch).unwrap();
        let partials = greedy(&model, &batch, &memory).unwrap();
        for (i, p) in partials.iter().enumerate() {
            // Re-score the decoded tokens teacher-forced on this crop alone.
            let one = batch_of([&inputs[i]], &model);
            let mem = model.encode(&one).unwrap();
            let mut input = vec![BOS];
            input.extend(&p.tokens);
            input.truncate(model.config.max_len);
            let n = input.len();
            let logits = model
                .decoder_logits(
                    &Tensor::new(input.as_slice(), &Device::Cpu)
                        .unwrap()
                        .unsqueeze(0)
                        .unwrap(),
                    &mem,
                    &one,
                )
                .unwrap();
            let logp = character_log_probs(&logits.squeeze(0).unwrap()).unwrap();
            for (t, &token) in p.tokens.iter().enumerate() {
                assert_eq!(argmax(&logp[t]).0, token, "crop {i} position {t}");
                assert!((logp[t][token as usize].exp() - p.probs[t]).abs() < 1e-3);
            }
            let mut total: f32 = p
                .tokens
                .iter()
                .enumerate()
                .map(|(t, &k)| logp[t][k as usize])
                .sum();
            if p.tokens.len() < n {
                total += logp[p.tokens.len()][EOS as usize];
            }
            assert!(
                (total - p.log_prob).abs() < 1e-2,
                "{total} vs {}",
                p.log_prob
            );
        }
    }

    #[test]
    fn readings_do_not_depend_on_batch_companions() {
        let (_, model, vocab) = models();
        let inputs = inputs(&model);
        let all = decode(
            &model,
            &vocab,
            &batch_of(&inputs, &model),
            DecodeOptions::beam(3),
        )
        .unwrap();
        for (i, input) in inputs.iter().enumerate() {
            let alone = decode(
                &model,
                &vocab,
                &batch_of([input], &model),
                DecodeOptions::beam(3),
            )
            .unwrap();
            assert_eq!(alone[0].best.text, all[i].best.text);
            assert_eq!(alone[0].ctc_text, all[i].ctc_text);
            assert!((alone[0].best.confidence - all[i].best.confidence).abs() < 1e-3);
        }
    }

    #[test]
    fn beam_search_ranks_distinct_alternatives_and_width_one_is_greedy() {
        let (_, model, vocab) = models();
        let inputs = inputs(&model);
        let batch = batch_of(&inputs, &model);
        let plain = |o: DecodeOptions| DecodeOptions {
            ctc_rescoring: None,
            ..o
        };
        let greedy = decode(&model, &vocab, &batch, plain(DecodeOptions::greedy())).unwrap();
        let beam = decode(&model, &vocab, &batch, plain(DecodeOptions::beam(4))).unwrap();
        let width_one = decode(&model, &vocab, &batch, plain(DecodeOptions::beam(1))).unwrap();
        assert_eq!(greedy, width_one);
        for b in &beam {
            assert_eq!(b.best.char_probs.len(), b.best.text.chars().count());
            assert!(b.alternatives.len() <= 3);
            // exp() of a random model's scores can underflow to 0.
            let mut last = if b.best.confidence > 0.0 {
                b.best.confidence.ln()
            } else {
                f32::INFINITY
            };
            for alt in &b.alternatives {
                assert!(alt.log_prob <= last + 1e-5);
                assert_ne!(alt.text, b.best.text);
                last = alt.log_prob;
            }
        }
    }

    #[test]
    fn a_token_keeps_the_likeliest_others_relative_to_it() {
        let row: Vec<f32> = [0.1f32, 0.5, 0.3, 0.1].iter().map(|p| p.ln()).collect();
        let mut partial = Partial::default();
        partial.push(2, &row);
        partial.push(1, &row);
        let close = |a: f32, b: f32| (a - b).abs() < 1e-5;
        let [(first, r1), (second, r2)] = partial.rivals[0];
        assert_eq!(first, 1);
        assert!(close(r1, 0.5 / 0.3), "{r1}");
        assert!(second == 0 || second == 3);
        assert!(close(r2, 0.1 / 0.3), "{r2}");
        let [(first, r1), _] = partial.rivals[1];
        assert_eq!(first, 2);
        assert!(close(r1, 0.6), "{r1}");
        assert_eq!(partial.tokens, [2, 1]);
        assert!(close(partial.probs[0], 0.3));
    }

    #[test]
    fn every_character_read_carries_its_rivals() {
        let (_, model, vocab) = models();
        let inputs = inputs(&model);
        let batch = batch_of(&inputs, &model);
        // Greedy alone (no CTC reading in the running), so each character is its
        // step's likeliest and every rival at most as likely.
        let greedy = DecodeOptions {
            ctc_rescoring: None,
            ..DecodeOptions::greedy()
        };
        for reading in decode(&model, &vocab, &batch, greedy).unwrap() {
            assert_eq!(reading.best.rivals.len(), reading.best.text.chars().count());
            for (read, rivals) in reading.best.text.chars().zip(&reading.best.rivals) {
                assert!(rivals.len() <= RIVALS);
                let mut last = 1.0;
                for &(rival, relative) in rivals {
                    assert_ne!(rival, read);
                    assert!(relative > 0.0 && relative <= last, "{rivals:?}");
                    last = relative;
                }
            }
        }
        for reading in decode(&model, &vocab, &batch, DecodeOptions::beam(3)).unwrap() {
            assert_eq!(reading.best.rivals.len(), reading.best.text.chars().count());
            for h in &reading.alternatives {
                assert_eq!(h.rivals.len(), h.text.chars().count());
            }
        }
    }

    /// Beam-3 readings of `batch`, jointly rescored with this CTC weight, or by the
    /// decoder alone (`None`).
    fn beam3(
        model: &LineModel,
        vocab: &Vocab,
        batch: &ImageBatch,
        ctc_weight: Option<f32>,
    ) -> Vec<Reading> {
        let options = DecodeOptions {
            ctc_rescoring: ctc_weight,
            ..DecodeOptions::beam(3)
        };
        decode(model, vocab, batch, options).unwrap()
    }

    #[test]
    fn ctc_rescoring_ranks_decoder_and_ctc_readings_together() {
        let (_, model, vocab) = models();
        let inputs = inputs(&model);
        let batch = batch_of(&inputs, &model);
        let plain = beam3(&model, &vocab, &batch, None);
        let joint = beam3(&model, &vocab, &batch, Some(CTC_WEIGHT));
        for (p, j) in plain.iter().zip(&joint) {
            let mut pool: Vec<&str> = p.alternatives.iter().map(|h| h.text.as_str()).collect();
            pool.extend([p.best.text.as_str(), p.ctc_text.as_str()]);
            assert!(
                pool.contains(&j.best.text.as_str()),
                "{} not among {pool:?}",
                j.best.text
            );
            assert_eq!(j.best.char_probs.len(), j.best.text.chars().count());
            let mut last = if j.best.confidence > 0.0 {
                j.best.confidence.ln()
            } else {
                f32::INFINITY
            };
            for alt in &j.alternatives {
                assert!(alt.log_prob <= last + 1e-5);
                last = alt.log_prob;
            }
        }
    }

    #[test]
    fn the_ctc_weight_sets_each_models_share_of_the_joint_score() {
        let (_, model, vocab) = models();
        let inputs = inputs(&model);
        let batch = batch_of(&inputs, &model);
        let with_weight = |w: f32| beam3(&model, &vocab, &batch, Some(w));
        let plain = beam3(&model, &vocab, &batch, None);
        // Weight 0: the decoder alone scores; a reading the beam also found keeps
        // the beam's score.
        let decoder_only = with_weight(0.0);
        let mut compared = 0;
        for (p, j) in plain.iter().zip(&decoder_only) {
            if p.best.text == j.best.text {
                assert!((p.best.log_prob - j.best.log_prob).abs() < 1e-4);
                compared += 1;
            }
        }
        assert!(compared > 0);
        // Any other weight mixes in the CTC head's score.
        let mixed = with_weight(CTC_WEIGHT);
        assert!(
            decoder_only
                .iter()
                .zip(&mixed)
                .any(|(d, m)| (d.best.log_prob - m.best.log_prob).abs() > 1e-3)
        );
    }

    #[test]
    fn top_k_is_sorted_and_bounded() {
        assert_eq!(top_k(&[0.1, 0.5, -1.0, 0.3], 2), vec![(1, 0.5), (3, 0.3)]);
        assert_eq!(top_k(&[0.1], 3), vec![(0, 0.1)]);
    }
}
