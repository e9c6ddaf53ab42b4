//! The dynamic batcher: crops from many concurrent requests are queued, grouped by
//! width into batches of up to `max_batch_size` (waiting at most `max_wait` for a
//! batch to fill), read on dedicated inference threads, and answered through
//! one-shot channels. The queue is bounded: when full, callers get
//! [`RecognizeError::Overloaded`] at once instead of growing memory.
//!
//! Metrics (via the `metrics` crate): `recognizer_batch_size`,
//! `recognizer_queue_wait_seconds`, `recognizer_inference_seconds` (histograms),
//! `recognizer_queue_depth` (gauge), `recognizer_overloaded_total` (counter).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, bounded};
use image::GrayImage;

use super::decode::{DecodeOptions, Reading};
use super::preprocess::LineInput;
use super::recognizer::{RecognizeError, Recognizer};

/// What the batcher runs: the recognizer, or a double in tests.
pub trait LineReader: Send + Sync + 'static {
    fn prepare(&self, crop: &GrayImage) -> LineInput;
    fn read_batch(&self, inputs: &[&LineInput]) -> Result<Vec<Reading>, RecognizeError>;
}

/// The recognizer with fixed decoding options.
pub struct RecognizerReader {
    pub recognizer: Recognizer,
    pub options: DecodeOptions,
}

impl LineReader for RecognizerReader {
    fn prepare(&self, crop: &GrayImage) -> LineInput {
        self.recognizer.prepare(crop)
    }

    fn read_batch(&self, inputs: &[&LineInput]) -> Result<Vec<Reading>, RecognizeError> {
        self.recognizer.recognize_prepared(inputs, self.options)
    }
}

#[derive(Debug, Clone)]
pub struct BatcherConfig {
    /// Most crops read in one model call.
    pub max_batch_size: usize,
    /// Longest a crop waits for companions before its batch runs anyway.
    pub max_wait: Duration,
    /// Most crops queued (not yet in a batch); more are refused as overload.
    pub queue_capacity: usize,
    /// Dedicated inference threads.
    pub threads: usize,
    /// Crops whose width differs from the oldest queued crop by more than this
    /// factor wait for a batch of their own, to limit padding.
    pub width_ratio: f32,
}

impl Default for BatcherConfig {
    /// Measured on two CPU cores (benches/recognizer.rs): a batch of 32 costs far
    /// less than 32 single reads, and 4 ms of waiting is small next to a read, so
    /// under load batches fill while an idle service adds at most 4 ms.
    fn default() -> Self {
        BatcherConfig {
            max_batch_size: 32,
            max_wait: Duration::from_millis(4),
            queue_capacity: 1024,
            threads: 1,
            width_ratio: 2.0,
        }
    }
}

/// One queued crop.
struct Job {
    input: LineInput,
    enqueued: Instant,
    reply: Sender<Result<Reading, RecognizeError>>,
}

struct Shared {
    queue: Sender<Job>,
    /// Crops reserved in the queue; reserving before sending keeps multi-crop
    /// requests all-or-nothing.
    queued: Arc<AtomicUsize>,
    capacity: usize,
    reader: Arc<dyn LineReader>,
    threads: Vec<JoinHandle<()>>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // Closing the queue stops the dispatcher, which stops the workers.
        let (dead, _) = bounded(0);
        self.queue = dead;
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// A cheap, cloneable handle to a running batcher. The threads stop when the last
/// handle is dropped.
#[derive(Clone)]
pub struct BatcherHandle {
    shared: Arc<Shared>,
}

pub struct Batcher;

impl Batcher {
    pub fn start(reader: impl LineReader, config: BatcherConfig) -> BatcherHandle {
        let reader: Arc<dyn LineReader> = Arc::new(reader);
        let capacity = config.queue_capacity.max(1);
        let (queue_tx, queue_rx) = bounded::<Job>(capacity);
        let (batch_tx, batch_rx) = bounded::<Vec<Job>>(0);
        let (ready_tx, ready_rx) = bounded::<()>(config.threads.max(1));
        let queued = Arc::new(AtomicUsize::new(0));
        let mut threads = Vec::new();
        for i in 0..config.threads.max(1) {
            let (reader, batch_rx, ready_tx) = (reader.clone(), batch_rx.clone(), ready_tx.clone());
            threads.push(
                std::thread::Builder::new()
                    .name(format!("recognizer-{i}"))
                    .spawn(move || worker(reader, batch_rx, ready_tx))
                    .expect("spawning an inference thread"),
            );
        }
        let dispatcher_queued = queued.clone();
        threads.push(
            std::thread::Builder::new()
                .name("recognizer-batcher".into())
                .spawn(move || dispatch(queue_rx, ready_rx, batch_tx, dispatcher_queued, config))
                .expect("spawning the batcher thread"),
        );
        BatcherHandle { shared: Arc::new(Shared { queue: queue_tx, queued, capacity, reader, threads }) }
    }
}

impl BatcherHandle {
    /// Reads `crops`, blocking until every one is answered; readings are in input order.
    pub fn recognize(&self, crops: Vec<GrayImage>) -> Result<Vec<Reading>, RecognizeError> {
        let n = crops.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let inputs: Vec<LineInput> = crops.iter().map(|c| self.shared.reader.prepare(c)).collect();
        self.reserve(n)?;
        let mut replies = Vec::with_capacity(n);
        for input in inputs {
            let (tx, rx) = bounded(1);
            let job = Job { input, enqueued: Instant::now(), reply: tx };
            if self.shared.queue.send(job).is_err() {
                return Err(RecognizeError::ShutDown);
            }
            replies.push(rx);
        }
        metrics::gauge!("recognizer_queue_depth").set(self.shared.queued.load(Ordering::Relaxed) as f64);
        replies.into_iter().map(|rx| rx.recv().unwrap_or(Err(RecognizeError::ShutDown))).collect()
    }

    fn reserve(&self, n: usize) -> Result<(), RecognizeError> {
        let capacity = self.shared.capacity;
        self.shared
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| (q + n <= capacity).then_some(q + n))
            .map(|_| ())
            .map_err(|_| {
                metrics::counter!("recognizer_overloaded_total").increment(1);
                RecognizeError::Overloaded
            })
    }
}

fn worker(reader: Arc<dyn LineReader>, batches: Receiver<Vec<Job>>, ready: Sender<()>) {
    loop {
        if ready.send(()).is_err() {
            return;
        }
        let Ok(jobs) = batches.recv() else { return };
        let started = Instant::now();
        let inputs: Vec<&LineInput> = jobs.iter().map(|j| &j.input).collect();
        let result = reader.read_batch(&inputs);
        metrics::histogram!("recognizer_inference_seconds").record(started.elapsed().as_secs_f64());
        match result {
            Ok(readings) if readings.len() == jobs.len() => {
                for (job, reading) in jobs.into_iter().zip(readings) {
                    let _ = job.reply.send(Ok(reading));
                }
            }
            Ok(readings) => {
                let e = RecognizeError::Model(format!("{} readings for {} crops", readings.len(), jobs.len()));
                jobs.into_iter().for_each(|j| drop(j.reply.send(Err(e.clone()))));
            }
            Err(e) => jobs.into_iter().for_each(|j| drop(j.reply.send(Err(e.clone())))),
        }
    }
}

/// Waits for a free worker, then gathers a batch around the oldest queued crop.
fn dispatch(queue: Receiver<Job>, ready: Receiver<()>, batches: Sender<Vec<Job>>, queued: Arc<AtomicUsize>, config: BatcherConfig) {
    let max = config.max_batch_size.max(1);
    // Crops taken off the queue but not yet batched, oldest first.
    let mut pending: Vec<Job> = Vec::new();
    let take = |job: Job, pending: &mut Vec<Job>| {
        queued.fetch_sub(1, Ordering::AcqRel);
        pending.push(job);
    };
    loop {
        if ready.recv().is_err() {
            return;
        }
        if pending.is_empty() {
            match queue.recv() {
                Ok(job) => take(job, &mut pending),
                Err(_) => return,
            }
        }
        let deadline = pending[0].enqueued + config.max_wait;
        let mut closed = false;
        while pending.len() < max {
            match queue.try_recv() {
                Ok(job) => {
                    take(job, &mut pending);
                    continue;
                }
                Err(crossbeam_channel::TryRecvError::Disconnected) => {
                    closed = true;
                    break;
                }
                Err(crossbeam_channel::TryRecvError::Empty) => {}
            }
            match queue.recv_deadline(deadline) {
                Ok(job) => take(job, &mut pending),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    closed = true;
                    break;
                }
            }
        }
        // Drain what else is waiting (bounded) so bucketing has a choice.
        while pending.len() < 4 * max {
            match queue.try_recv() {
                Ok(job) => take(job, &mut pending),
                Err(_) => break,
            }
        }
        let batch = pick_batch(&mut pending, max, config.width_ratio);
        let now = Instant::now();
        for job in &batch {
            metrics::histogram!("recognizer_queue_wait_seconds").record((now - job.enqueued).as_secs_f64());
        }
        metrics::histogram!("recognizer_batch_size").record(batch.len() as f64);
        if batches.send(batch).is_err() {
            return;
        }
        if closed && pending.is_empty() {
            return;
        }
    }
}

/// Removes from `pending` the oldest crop plus up to `max - 1` others closest to
/// its width (within `width_ratio`), so one batch pads little.
fn pick_batch(pending: &mut Vec<Job>, max: usize, width_ratio: f32) -> Vec<Job> {
    let anchor = pending[0].input.width as f32;
    let mut order: Vec<usize> = (1..pending.len())
        .filter(|&i| {
            let w = pending[i].input.width as f32;
            w <= anchor * width_ratio && w * width_ratio >= anchor
        })
        .collect();
    order.sort_by(|&a, &b| {
        let da = (pending[a].input.width as f32 - anchor).abs();
        let db = (pending[b].input.width as f32 - anchor).abs();
        da.total_cmp(&db).then(a.cmp(&b))
    });
    let mut chosen: Vec<usize> = std::iter::once(0).chain(order.into_iter().take(max - 1)).collect();
    chosen.sort_unstable();
    let mut batch = Vec::with_capacity(chosen.len());
    for &i in chosen.iter().rev() {
        batch.push(pending.remove(i));
    }
    batch.reverse();
    batch
}
