//! Where the recognizer computes: the CPU by default, an NVIDIA GPU when the binary
//! is built with `--features cuda` and one is asked for (`--device cuda`, or
//! `HAWIYA_DEVICE=cuda`).

use std::fmt;
use std::str::FromStr;

use candle_core::Device;

/// Fixes the CPU thread count candle uses for its matrix products, once, at start-up.
///
/// Unless `RAYON_NUM_THREADS` is set, candle-core 0.11 asks for the physical core
/// count on every matrix product, and on Linux that reads and parses
/// `/proc/cpuinfo`: 8 % of the CPU time of reading a document on this 2-core
/// machine. Setting the variable to that same count keeps candle's choice and
/// makes the lookup a string parse. An explicit setting is left alone.
///
/// # Safety
///
/// Changes the process environment: call it before any other thread starts (first
/// thing in `main`), as `std::env::set_var` requires.
pub unsafe fn fix_cpu_thread_count() {
    const RAYON_THREADS_ENV: &str = "RAYON_NUM_THREADS";
    if std::env::var_os(RAYON_THREADS_ENV).is_none() {
        let physical = num_cpus::get_physical().max(1);
        // SAFETY: the caller guarantees no other thread exists yet.
        unsafe { std::env::set_var(RAYON_THREADS_ENV, physical.to_string()) };
    }
}

/// The `--device` option of every command that runs the recognizer (`serve`,
/// `extract`, `eval`, `calibrate`, `train`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::Args)]
pub struct DeviceOption {
    /// Where the recognizer runs: cpu, cuda, cuda:N or auto (a GPU needs a binary
    /// built with `--features cuda`).
    #[arg(long, env = "HAWIYA_DEVICE", default_value = "cpu")]
    pub device: ComputeDevice,
}

/// A requested compute device, before it is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ComputeDevice {
    #[default]
    Cpu,
    /// The CUDA device of this ordinal.
    Cuda(usize),
    /// CUDA device 0 when the binary has CUDA support and a GPU answers, else the CPU.
    Auto,
}

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("unknown device {0:?}: expected cpu, cuda, cuda:N or auto")]
    Unknown(String),
    #[error("device {0} asked for, but this binary was built without `--features cuda`")]
    NoCudaSupport(ComputeDevice),
    #[error("cannot open {device}: {source}")]
    Open {
        device: ComputeDevice,
        source: candle_core::Error,
    },
}

impl ComputeDevice {
    pub fn open(self) -> Result<Device, DeviceError> {
        match self {
            ComputeDevice::Cpu => Ok(Device::Cpu),
            ComputeDevice::Auto => Ok(Device::cuda_if_available(0).unwrap_or(Device::Cpu)),
            ComputeDevice::Cuda(_) if !candle_core::utils::cuda_is_available() => {
                Err(DeviceError::NoCudaSupport(self))
            }
            ComputeDevice::Cuda(ordinal) => {
                Device::new_cuda(ordinal).map_err(|source| DeviceError::Open {
                    device: self,
                    source,
                })
            }
        }
    }
}

impl FromStr for ComputeDevice {
    type Err = DeviceError;

    fn from_str(s: &str) -> Result<ComputeDevice, DeviceError> {
        let name = s.trim().to_ascii_lowercase();
        match name.as_str() {
            "cpu" => Ok(ComputeDevice::Cpu),
            "auto" => Ok(ComputeDevice::Auto),
            "cuda" | "gpu" => Ok(ComputeDevice::Cuda(0)),
            _ => name
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(ComputeDevice::Cuda)
                .ok_or_else(|| DeviceError::Unknown(s.to_string())),
        }
    }
}

impl fmt::Display for ComputeDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ComputeDevice::Cpu => f.write_str("cpu"),
            ComputeDevice::Cuda(n) => write!(f, "cuda:{n}"),
            ComputeDevice::Auto => f.write_str("auto"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print_back() {
        for (name, device) in [
            ("cpu", ComputeDevice::Cpu),
            ("CUDA", ComputeDevice::Cuda(0)),
            ("cuda:1", ComputeDevice::Cuda(1)),
            ("auto", ComputeDevice::Auto),
        ] {
            assert_eq!(name.parse::<ComputeDevice>().unwrap(), device);
        }
        assert_eq!(ComputeDevice::Cuda(1).to_string(), "cuda:1");
        assert!(matches!(
            "tpu".parse::<ComputeDevice>(),
            Err(DeviceError::Unknown(_))
        ));
        assert!("cuda:x".parse::<ComputeDevice>().is_err());
    }

    #[test]
    fn cpu_and_auto_always_open() {
        assert!(ComputeDevice::Cpu.open().unwrap().is_cpu());
        assert!(ComputeDevice::Auto.open().is_ok());
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn cuda_without_the_feature_is_a_clear_error() {
        let err = ComputeDevice::Cuda(0).open().unwrap_err();
        assert!(err.to_string().contains("--features cuda"), "{err}");
    }
}
