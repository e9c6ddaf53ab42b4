//! The dynamic batcher: crops from many concurrent requests are queued, grouped by
//! width into batches of up to `max_batch_size` (waiting at most `max_wait` for a
//! batch to fill; widths as far apart as the recognizer says padding is worth,
//! [`BatchRecognizer::width_ratio`]), recognized on dedicated inference threads, and answered
//! through one-shot channels. The queue is bounded: when full, callers get
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

use super::decode::Reading;
use super::preprocess::{LineInput, width_groups};
use super::recognize::{RecognizeError, RecognizerWithOptions};

/// What the batcher's threads run: the recognizer with its decoding options
/// ([`RecognizerWithOptions`]), or a double in tests.
pub trait BatchRecognizer: Send + Sync + 'static {
    fn prepare(&self, crop: &GrayImage) -> LineInput;
    /// Recognizes one batch, padded to its widest crop.
    fn recognize_batch(&self, inputs: &[&LineInput]) -> Result<Vec<Reading>, RecognizeError>;
    /// The widest crop worth padding into one batch with the narrowest, as a multiple
    /// of its width: what padding costs the recognizer
    /// ([`Recognizer::width_ratio`](super::Recognizer::width_ratio)).
    fn width_ratio(&self) -> f32;
}

impl BatchRecognizer for RecognizerWithOptions {
    fn prepare(&self, crop: &GrayImage) -> LineInput {
        self.recognizer.prepare(crop)
    }

    fn recognize_batch(&self, inputs: &[&LineInput]) -> Result<Vec<Reading>, RecognizeError> {
        self.recognizer.recognize_batch(inputs, self.options)
    }

    fn width_ratio(&self) -> f32 {
        self.recognizer.width_ratio()
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
        }
    }
}

/// The batcher's command-line options (`serve`, `extract`, `eval docs`: every
/// command that runs the pipeline), each also read from its `HAWIYA_*` variable.
#[derive(Debug, Clone, PartialEq, clap::Args)]
#[command(next_help_heading = "Recognizer batching")]
pub struct BatcherOptions {
    /// Most text lines the recognizer reads in one batch.
    #[arg(long, env = "HAWIYA_BATCH_SIZE", default_value_t = BatcherConfig::default().max_batch_size, value_parser = at_least_one)]
    pub batch_size: usize,
    /// Longest a line waits for its batch to fill, in milliseconds.
    #[arg(long, env = "HAWIYA_BATCH_WAIT_MS", default_value_t = BatcherConfig::default().max_wait.as_millis() as u64)]
    pub batch_wait_ms: u64,
    /// Recognizer threads: batches read at once.
    #[arg(long, env = "HAWIYA_INFERENCE_THREADS", default_value_t = BatcherConfig::default().threads, value_parser = at_least_one)]
    pub inference_threads: usize,
}

/// A whole number of at least one.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{text}` is not a whole number of at least 1")),
    }
}

impl Default for BatcherOptions {
    fn default() -> Self {
        let defaults = BatcherConfig::default();
        BatcherOptions {
            batch_size: defaults.max_batch_size,
            batch_wait_ms: defaults.max_wait.as_millis() as u64,
            inference_threads: defaults.threads,
        }
    }
}

impl BatcherOptions {
    /// The defaults with these options applied.
    pub fn config(&self) -> BatcherConfig {
        BatcherConfig {
            max_batch_size: self.batch_size,
            max_wait: Duration::from_millis(self.batch_wait_ms),
            threads: self.inference_threads,
            ..BatcherConfig::default()
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
    recognizer: Arc<dyn BatchRecognizer>,
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
    pub fn start(recognizer: impl BatchRecognizer, config: BatcherConfig) -> BatcherHandle {
        let recognizer: Arc<dyn BatchRecognizer> = Arc::new(recognizer);
        let capacity = config.queue_capacity.max(1);
        let (queue_tx, queue_rx) = bounded::<Job>(capacity);
        let (batch_tx, batch_rx) = bounded::<Vec<Job>>(0);
        let (ready_tx, ready_rx) = bounded::<()>(config.threads.max(1));
        let queued = Arc::new(AtomicUsize::new(0));
        let mut threads = Vec::new();
        for i in 0..config.threads.max(1) {
            let (recognizer, batch_rx, ready_tx) =
                (recognizer.clone(), batch_rx.clone(), ready_tx.clone());
            threads.push(
                std::thread::Builder::new()
                    .name(format!("recognizer-{i}"))
                    .spawn(move || {
                        with_inline_cpu_kernels(|| worker(recognizer, batch_rx, ready_tx))
                    })
                    .expect("spawning an inference thread"),
            );
        }
        let (dispatcher_queued, width_ratio) = (queued.clone(), recognizer.width_ratio());
        threads.push(
            std::thread::Builder::new()
                .name("recognizer-batcher".into())
                .spawn(move || {
                    dispatch(
                        queue_rx,
                        ready_rx,
                        batch_tx,
                        dispatcher_queued,
                        config,
                        width_ratio,
                    )
                })
                .expect("spawning the batcher thread"),
        );
        BatcherHandle {
            shared: Arc::new(Shared {
                queue: queue_tx,
                queued,
                capacity,
                recognizer,
                threads,
            }),
        }
    }
}

impl BatcherHandle {
    /// Recognizes `crops`, blocking until every one is answered; readings are in
    /// input order.
    pub fn recognize(&self, crops: Vec<GrayImage>) -> Result<Vec<Reading>, RecognizeError> {
        let n = crops.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let inputs: Vec<LineInput> = crops
            .iter()
            .map(|c| self.shared.recognizer.prepare(c))
            .collect();
        self.reserve(n)?;
        let mut replies = Vec::with_capacity(n);
        for input in inputs {
            let (tx, rx) = bounded(1);
            let job = Job {
                input,
                enqueued: Instant::now(),
                reply: tx,
            };
            if self.shared.queue.send(job).is_err() {
                return Err(RecognizeError::ShutDown);
            }
            // Taken off when the crop joins a batch (`dispatch`): the gauge counts the
            // crops waiting for one.
            metrics::gauge!("recognizer_queue_depth").increment(1.0);
            replies.push(rx);
        }
        replies
            .into_iter()
            .map(|rx| rx.recv().unwrap_or(Err(RecognizeError::ShutDown)))
            .collect()
    }

    /// Whether a new crop would be accepted right now.
    pub fn is_ready(&self) -> bool {
        self.shared.queued.load(Ordering::Acquire) < self.shared.capacity
    }

    fn reserve(&self, n: usize) -> Result<(), RecognizeError> {
        let capacity = self.shared.capacity;
        self.shared
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| {
                (q + n <= capacity).then_some(q + n)
            })
            .map(|_| ())
            .map_err(|_| {
                metrics::counter!("recognizer_overloaded_total").increment(1);
                RecognizeError::Overloaded
            })
    }
}

/// Runs `f` with this thread as the only thread of a rayon pool of its own, so that
/// candle's CPU kernels run their parallel loops (softmax, layer norm, convolution)
/// inline. From any other thread each such loop hands its work to rayon's global
/// pool and sleeps until a pool thread has done it: two context switches per
/// operation, hundreds per decoding step, half the recognition time of a document
/// on two cores. Matrix products then run on this thread alone too; more
/// inference threads (`HAWIYA_INFERENCE_THREADS`) are how to use more cores.
/// Runs `f` as it is, slower but correct, if the pool cannot be made.
fn with_inline_cpu_kernels(f: impl FnOnce() + Send) {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
    {
        Ok(pool) => pool.install(f),
        Err(error) => {
            tracing::warn!(%error, "inference thread without a rayon pool of its own");
            f()
        }
    }
}

fn worker(recognizer: Arc<dyn BatchRecognizer>, batches: Receiver<Vec<Job>>, ready: Sender<()>) {
    loop {
        if ready.send(()).is_err() {
            return;
        }
        let Ok(jobs) = batches.recv() else { return };
        let started = Instant::now();
        let inputs: Vec<&LineInput> = jobs.iter().map(|j| &j.input).collect();
        let result = recognizer.recognize_batch(&inputs);
        metrics::histogram!("recognizer_inference_seconds").record(started.elapsed().as_secs_f64());
        match result {
            Ok(readings) if readings.len() == jobs.len() => {
                for (job, reading) in jobs.into_iter().zip(readings) {
                    let _ = job.reply.send(Ok(reading));
                }
            }
            Ok(readings) => {
                let e = RecognizeError::Model(format!(
                    "{} readings for {} crops",
                    readings.len(),
                    jobs.len()
                ));
                jobs.into_iter()
                    .for_each(|j| drop(j.reply.send(Err(e.clone()))));
            }
            Err(e) => jobs
                .into_iter()
                .for_each(|j| drop(j.reply.send(Err(e.clone())))),
        }
    }
}

/// Waits for a free worker, then gathers a batch around the oldest queued crop.
fn dispatch(
    queue: Receiver<Job>,
    ready: Receiver<()>,
    batches: Sender<Vec<Job>>,
    queued: Arc<AtomicUsize>,
    config: BatcherConfig,
    width_ratio: f32,
) {
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
        let batch = pick_batch(&mut pending, max, width_ratio);
        let now = Instant::now();
        for job in &batch {
            metrics::histogram!("recognizer_queue_wait_seconds")
                .record((now - job.enqueued).as_secs_f64());
        }
        metrics::histogram!("recognizer_batch_size").record(batch.len() as f64);
        metrics::gauge!("recognizer_queue_depth").decrement(batch.len() as f64);
        if batches.send(batch).is_err() {
            return;
        }
        if closed && pending.is_empty() {
            return;
        }
    }
}

/// Removes from `pending` the oldest crop plus up to `max - 1` others of its width
/// group ([`width_groups`] with `width_ratio`), closest to its width first, so one
/// batch pads only as much as the recognizer finds worth it.
fn pick_batch(pending: &mut Vec<Job>, max: usize, width_ratio: f32) -> Vec<Job> {
    let widths: Vec<usize> = pending.iter().map(|j| j.input.width).collect();
    let anchor = widths[0] as f32;
    let mut order: Vec<usize> = width_groups(&widths, width_ratio)
        .into_iter()
        .find(|group| group.contains(&0))
        .unwrap_or_default()
        .into_iter()
        .filter(|&i| i != 0)
        .collect();
    order.sort_by(|&a, &b| {
        let da = (pending[a].input.width as f32 - anchor).abs();
        let db = (pending[b].input.width as f32 - anchor).abs();
        da.total_cmp(&db).then(a.cmp(&b))
    });
    let mut chosen: Vec<usize> = std::iter::once(0)
        .chain(order.into_iter().take(max - 1))
        .collect();
    chosen.sort_unstable();
    let mut batch = Vec::with_capacity(chosen.len());
    for &i in chosen.iter().rev() {
        batch.push(pending.remove(i));
    }
    batch.reverse();
    batch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_override_the_defaults_and_bad_values_are_refused() {
        use clap::Parser;

        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            batcher: BatcherOptions,
        }
        let parse = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("hawiya").chain(args.iter().copied()))
                .map(|cli| cli.batcher)
        };
        let defaults = BatcherConfig::default();
        let same = BatcherOptions::default().config();
        assert_eq!(
            (same.max_batch_size, same.max_wait, same.threads),
            (defaults.max_batch_size, defaults.max_wait, defaults.threads)
        );
        let set = parse(&[
            "--batch-size",
            "8",
            "--batch-wait-ms",
            "0",
            "--inference-threads",
            " 2 ",
        ])
        .unwrap()
        .config();
        assert_eq!(
            (set.max_batch_size, set.max_wait, set.threads),
            (8, Duration::ZERO, 2)
        );
        for (bad, flag) in [
            ("--inference-threads=0", "--inference-threads"),
            ("--batch-size=lots", "--batch-size"),
            ("--batch-wait-ms=-1", "--batch-wait-ms"),
        ] {
            let err = parse(&[bad]).expect_err("refused");
            assert!(err.to_string().contains(flag), "{err}");
        }
    }

    use parking_lot::Mutex;
    use rand::{Rng, SeedableRng};

    /// Test double: a crop's identity is its width; the reading repeats it.
    struct Echo {
        seen: Mutex<Vec<usize>>,
        batch_sizes: Mutex<Vec<usize>>,
        /// Each batch waits for a token when set: lets a test hold the worker.
        gate: Option<Receiver<()>>,
        started: Option<Sender<()>>,
        fail: bool,
        /// What it says padding is worth.
        width_ratio: f32,
    }

    impl Echo {
        fn new() -> Echo {
            Echo {
                seen: Mutex::new(Vec::new()),
                batch_sizes: Mutex::new(Vec::new()),
                gate: None,
                width_ratio: 2.0,
                started: None,
                fail: false,
            }
        }
    }

    /// A test double's prepared crop: its width, which identifies it, and no pixels.
    fn width_only(crop: &GrayImage) -> LineInput {
        LineInput {
            width: crop.width() as usize,
            pixels: Vec::new(),
        }
    }

    fn reading(text: String) -> Reading {
        Reading::of_text(&text, 1.0)
    }

    impl BatchRecognizer for Arc<Echo> {
        fn prepare(&self, crop: &GrayImage) -> LineInput {
            width_only(crop)
        }

        fn recognize_batch(&self, inputs: &[&LineInput]) -> Result<Vec<Reading>, RecognizeError> {
            if let Some(tx) = &self.started {
                let _ = tx.send(());
            }
            if let Some(gate) = &self.gate {
                let _ = gate.recv();
            }
            if self.fail {
                return Err(RecognizeError::Model("test failure".into()));
            }
            self.batch_sizes.lock().push(inputs.len());
            self.seen.lock().extend(inputs.iter().map(|i| i.width));
            Ok(inputs
                .iter()
                .map(|i| reading(i.width.to_string()))
                .collect())
        }

        fn width_ratio(&self) -> f32 {
            self.width_ratio
        }
    }

    fn crops(ids: &[u32]) -> Vec<GrayImage> {
        ids.iter().map(|&id| GrayImage::new(id, 1)).collect()
    }

    #[test]
    fn every_crop_is_answered_exactly_once_and_in_order() {
        for (threads, max_wait) in [(1, 0), (2, 2), (3, 5)] {
            let echo = Arc::new(Echo {
                width_ratio: 1.5,
                ..Echo::new()
            });
            let config = BatcherConfig {
                max_batch_size: 7,
                max_wait: Duration::from_millis(max_wait),
                queue_capacity: 10_000,
                threads,
            };
            let handle = Batcher::start(echo.clone(), config);
            let submitted: Vec<u32> = std::thread::scope(|s| {
                let workers: Vec<_> = (0..8u32)
                    .map(|t| {
                        let handle = handle.clone();
                        s.spawn(move || {
                            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(t as u64);
                            let mut mine = Vec::new();
                            for r in 0..40u32 {
                                let n = rng.random_range(0..12u32);
                                let ids: Vec<u32> =
                                    (0..n).map(|k| 1 + t * 100_000 + r * 100 + k).collect();
                                let readings = handle.recognize(crops(&ids)).unwrap();
                                let texts: Vec<String> =
                                    readings.into_iter().map(|r| r.best.text).collect();
                                assert_eq!(
                                    texts,
                                    ids.iter().map(|i| i.to_string()).collect::<Vec<_>>()
                                );
                                mine.extend(ids);
                            }
                            mine
                        })
                    })
                    .collect();
                workers
                    .into_iter()
                    .flat_map(|w| w.join().unwrap())
                    .collect()
            });
            drop(handle);
            let mut seen = echo.seen.lock().clone();
            seen.sort_unstable();
            let mut expected: Vec<usize> = submitted.iter().map(|&i| i as usize).collect();
            expected.sort_unstable();
            assert_eq!(seen, expected, "each crop read exactly once");
            assert!(
                echo.batch_sizes
                    .lock()
                    .iter()
                    .all(|&n| (1..=7).contains(&n))
            );
        }
    }

    #[test]
    fn a_full_queue_refuses_at_once_and_recovers() {
        let (gate_tx, gate_rx) = bounded::<()>(0);
        let (started_tx, started_rx) = bounded::<()>(100);
        let echo = Arc::new(Echo {
            gate: Some(gate_rx),
            started: Some(started_tx),
            ..Echo::new()
        });
        let config = BatcherConfig {
            max_batch_size: 2,
            max_wait: Duration::ZERO,
            queue_capacity: 4,
            threads: 1,
        };
        let handle = Batcher::start(echo.clone(), config);
        std::thread::scope(|s| {
            let h = handle.clone();
            let first = s.spawn(move || h.recognize(crops(&[1, 2])));
            started_rx.recv().unwrap(); // the worker now holds the first batch
            let h = handle.clone();
            let queued = s.spawn(move || h.recognize(crops(&[3, 4, 5, 6])));
            while handle.shared.queued.load(Ordering::Acquire) < 4 {
                std::thread::yield_now();
            }
            assert_eq!(
                handle.recognize(crops(&[7])).unwrap_err(),
                RecognizeError::Overloaded
            );
            assert_eq!(
                handle.recognize(crops(&[8; 5])).unwrap_err(),
                RecognizeError::Overloaded
            );
            // Release the worker: everything accepted is answered.
            std::thread::spawn(move || while gate_tx.send(()).is_ok() {});
            assert_eq!(first.join().unwrap().unwrap().len(), 2);
            assert_eq!(queued.join().unwrap().unwrap().len(), 4);
        });
        assert!(handle.is_ready());
        assert_eq!(handle.recognize(crops(&[9])).unwrap()[0].best.text, "9");
        let mut seen = echo.seen.lock().clone();
        seen.sort_unstable();
        assert_eq!(seen, vec![1, 2, 3, 4, 5, 6, 9]);
    }

    #[test]
    fn model_failures_reach_every_caller() {
        let echo = Arc::new(Echo {
            fail: true,
            ..Echo::new()
        });
        let handle = Batcher::start(echo, BatcherConfig::default());
        assert!(matches!(
            handle.recognize(crops(&[1, 2, 3])),
            Err(RecognizeError::Model(_))
        ));
        assert!(handle.recognize(Vec::new()).unwrap().is_empty());
    }

    #[test]
    fn batches_group_similar_widths() {
        let job = |w: usize| Job {
            input: LineInput {
                width: w,
                pixels: Vec::new(),
            },
            enqueued: Instant::now(),
            reply: bounded(1).0,
        };
        let mut pending: Vec<Job> = [100, 400, 110, 90, 800, 105].into_iter().map(job).collect();
        let batch = pick_batch(&mut pending, 3, 2.0);
        let widths: Vec<usize> = batch.iter().map(|j| j.input.width).collect();
        assert_eq!(widths, vec![100, 110, 105]);
        let rest: Vec<usize> = pending.iter().map(|j| j.input.width).collect();
        assert_eq!(rest, vec![400, 90, 800]);
    }

    #[test]
    fn a_batch_holds_only_widths_the_recognizer_finds_worth_padding_together() {
        for (ratio, sizes) in [(1.5, vec![2, 1]), (2.0, vec![3])] {
            let echo = Arc::new(Echo {
                width_ratio: ratio,
                ..Echo::new()
            });
            let config = BatcherConfig {
                max_batch_size: 8,
                max_wait: Duration::from_millis(50),
                ..BatcherConfig::default()
            };
            let handle = Batcher::start(echo.clone(), config);
            handle.recognize(crops(&[100, 140, 160])).unwrap();
            assert_eq!(*echo.batch_sizes.lock(), sizes, "width ratio {ratio}");
        }
    }

    /// Test double: reports, as its reading, how many threads a parallel loop run
    /// inside `recognize_batch` used besides the inference thread itself.
    struct ParallelLoopProbe;

    impl BatchRecognizer for ParallelLoopProbe {
        fn prepare(&self, crop: &GrayImage) -> LineInput {
            width_only(crop)
        }

        fn recognize_batch(&self, inputs: &[&LineInput]) -> Result<Vec<Reading>, RecognizeError> {
            use rayon::prelude::*;
            let here = std::thread::current().id();
            let elsewhere = (0..4096)
                .into_par_iter()
                .filter(|_| std::thread::current().id() != here)
                .count();
            Ok(inputs
                .iter()
                .map(|_| reading(elsewhere.to_string()))
                .collect())
        }

        fn width_ratio(&self) -> f32 {
            f32::INFINITY
        }
    }

    #[test]
    fn candles_parallel_loops_run_on_the_inference_thread_itself() {
        for threads in [1, 2] {
            let handle = Batcher::start(
                ParallelLoopProbe,
                BatcherConfig {
                    threads,
                    ..BatcherConfig::default()
                },
            );
            for reading in handle.recognize(crops(&[1, 2, 3])).unwrap() {
                assert_eq!(reading.best.text, "0", "{threads} inference threads");
            }
        }
    }
}
