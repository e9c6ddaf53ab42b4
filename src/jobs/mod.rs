//! Extraction jobs: what an upload asks for, the queue that carries it to a worker,
//! the worker that reads the document, and the result it leaves for the reader.
//!
//! Two queues behind one [`JobQueue`]: in this process (tasks bounded by
//! semaphores, results in the memory store), or in Redis (a stream read by workers
//! in any process, results in the Redis store). Both run the same extraction
//! ([`extract`]) and settle the job's credit by the same rule: a reading that
//! reaches its reader is charged, anything else is free.

pub mod extract;
mod id_type;
mod local;
mod redis;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::keys::KeyId;
use crate::pipeline::{ExtractError, Extraction};
use crate::redis_client::RedisError;
use crate::store::JobId;

pub use id_type::IdType;
pub use local::LocalQueue;
pub use redis::{QueueStats, RedisQueue, RedisWorker, WorkerStopped};

/// One uploaded document to read.
pub struct Job {
    pub id: JobId,
    /// The key that uploaded it, the only one that may read its result.
    pub owner: KeyId,
    pub request: JobRequest,
    /// The file as uploaded.
    pub image: Bytes,
}

/// What the upload asked for, carried to the worker and back to the reader.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobRequest {
    pub id_type: IdType,
    /// Whether the result carries the overlay.
    pub overlay: bool,
    /// The name Flow A answers the upload by (`imageName`).
    pub image_name: String,
}

/// What a job leaves for its reader, kept until it is delivered or expires.
#[derive(Debug, Serialize, Deserialize)]
pub struct JobResult {
    pub request: JobRequest,
    pub outcome: Result<Extraction, ExtractError>,
    /// When the extraction ended, in milliseconds since the Unix epoch.
    pub finished_ms: i64,
}

impl JobResult {
    /// When the extraction ended, in this server's time zone.
    pub fn finished_at(&self) -> chrono::DateTime<chrono::Local> {
        chrono::DateTime::from_timestamp_millis(self.finished_ms)
            .unwrap_or_default()
            .with_timezone(&chrono::Local)
    }
}

/// Why a job was not queued.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    #[error("the queue is full")]
    Full,
    #[error("the job id is taken")]
    IdTaken,
    #[error(transparent)]
    Unavailable(#[from] RedisError),
}

/// The queue uploads are handed to.
pub enum JobQueue {
    Local(LocalQueue),
    Redis(RedisQueue),
}

impl JobQueue {
    /// Registers the job as pending in the job store and hands it to a worker,
    /// unless the queue holds its bound of unfinished jobs already.
    pub async fn submit(&self, job: Job) -> Result<(), SubmitError> {
        match self {
            JobQueue::Local(local) => local.submit(job),
            JobQueue::Redis(redis) => redis.submit(job).await,
        }
    }

    /// Sets the queue's gauges for `/metrics`: unfinished jobs here, or the shared
    /// queue's length, running jobs, workers alive and jobs reclaimed in Redis.
    pub async fn record_metrics(&self) {
        match self {
            JobQueue::Local(local) => {
                metrics::gauge!("hawiya_jobs_unfinished").set(local.unfinished() as f64);
            }
            JobQueue::Redis(redis) => match redis.stats().await {
                Ok(stats) => stats.record(),
                Err(e) => tracing::debug!(error = %e, "no queue metrics while Redis is away"),
            },
        }
    }

    /// Waits until every job this process accepted has finished (in Redis, jobs
    /// queued stay there for any worker).
    pub async fn drain(&self) {
        if let JobQueue::Local(local) = self {
            local.drain().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::domain::DocumentKind;
    use crate::pipeline::{Overlay, OverlayField};
    use crate::record::{
        FlowAFields, FlowBCarLicence, FlowBData, FlowBDriverLicence, FlowBNationalId,
        FlowBPassport, FlowBResidencePermit,
    };

    fn reading(kind: DocumentKind, flow_b: FlowBData, overlay: Option<Overlay>) -> JobResult {
        JobResult {
            request: JobRequest {
                id_type: IdType::FrontOrLicence,
                overlay: overlay.is_some(),
                image_name: "1234567890123456789.jpg".into(),
            },
            outcome: Ok(Extraction {
                kind,
                flow_a: FlowAFields {
                    firstname: "أحمد".into(),
                    ..Default::default()
                },
                flow_b,
                confidence: 0.875,
                field_confidence: BTreeMap::from([("first_name".to_owned(), 0.5)]),
                low_confidence_fields: vec!["full_name".into()],
                timings: Vec::new(),
                overlay,
            }),
            finished_ms: 1_790_000_000_123,
        }
    }

    /// Through JSON and back, as a result waits in Redis.
    fn kept(result: &JobResult) -> JobResult {
        serde_json::from_str(&serde_json::to_string(result).unwrap()).unwrap()
    }

    #[test]
    fn a_result_keeps_every_shape_of_reading_its_overlay_and_its_refusal() {
        let shapes = [
            FlowBData::NationalId(FlowBNationalId {
                national_id: "29001011234567".into(),
                ..Default::default()
            }),
            FlowBData::DriverLicence(FlowBDriverLicence::default()),
            FlowBData::CarLicence(FlowBCarLicence::default()),
            FlowBData::Passport(FlowBPassport::default()),
            FlowBData::ResidencePermit(FlowBResidencePermit::default()),
        ];
        for flow_b in shapes {
            let result = reading(DocumentKind::NidFront, flow_b.clone(), None);
            let back = kept(&result);
            let extraction = back.outcome.unwrap();
            assert_eq!(extraction.flow_b, flow_b);
            assert_eq!(extraction.flow_a.firstname, "أحمد");
            assert_eq!(extraction.confidence, 0.875);
            assert_eq!(back.finished_ms, result.finished_ms);
            assert_eq!(back.request.image_name, result.request.image_name);
        }

        let card = image::GrayImage::from_pixel(40, 25, image::Luma([200]));
        let field = OverlayField {
            key: "national_id".into(),
            flow_a: vec!["national_ID".into()],
            flow_b: vec!["national_id".into()],
            confidence: 0.5,
            bounds: [1, 2, 30, 20],
        };
        let overlay = Overlay::draw(&card, vec![field.clone()]);
        let result = reading(
            DocumentKind::NidFront,
            FlowBData::NationalId(FlowBNationalId::default()),
            Some(overlay.clone()),
        );
        let kept_overlay = kept(&result).outcome.unwrap().overlay.unwrap();
        assert_eq!(kept_overlay.jpeg, overlay.jpeg);
        assert_eq!(kept_overlay.fields, vec![field]);
        assert_eq!((kept_overlay.width, kept_overlay.height), (40, 25));

        let refused = JobResult {
            outcome: Err(ExtractError::WrongKind {
                found: DocumentKind::Passport,
            }),
            ..reading(
                DocumentKind::NidFront,
                FlowBData::NationalId(FlowBNationalId::default()),
                None,
            )
        };
        assert_eq!(
            kept(&refused).outcome.unwrap_err(),
            refused.outcome.unwrap_err()
        );
    }
}
