//! The store's file backend: redb's own, with fault points in front of every write, so
//! tests can make the disk fail (a full disk) at a chosen moment. Without the
//! `failpoints` feature the points compile to nothing and this is redb's backend as is.

use std::fs::File;
use std::io;
use std::ops::Bound;

use redb::backends::FileBackend;
use redb::{BackendError, StorageBackend};

#[cfg_attr(not(feature = "failpoints"), allow(unused_imports))]
use crate::faults;

/// redb's file backend behind the [`faults::STORE_IO`] fault point.
#[derive(Debug)]
pub(super) struct Backend(FileBackend);

impl Backend {
    pub(super) fn new(file: File) -> Result<Backend, redb::DatabaseError> {
        FileBackend::new(file).map(Backend)
    }
}

/// What a failing disk says.
#[cfg_attr(not(feature = "failpoints"), allow(dead_code))]
pub(super) fn full() -> io::Error {
    io::Error::new(
        io::ErrorKind::StorageFull,
        "no space left on device (injected)",
    )
}

impl StorageBackend for Backend {
    fn len(&self) -> Result<u64, io::Error> {
        self.0.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), io::Error> {
        self.0.read(offset, out)
    }

    fn set_len(&self, len: u64) -> Result<(), io::Error> {
        fail::fail_point!(faults::STORE_IO, |_| Err(full()));
        self.0.set_len(len)
    }

    fn sync_data(&self) -> Result<(), io::Error> {
        fail::fail_point!(faults::STORE_IO, |_| Err(full()));
        self.0.sync_data()
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), io::Error> {
        fail::fail_point!(faults::STORE_IO, |_| Err(full()));
        self.0.write(offset, data)
    }

    fn close(&self) -> Result<(), io::Error> {
        self.0.close()
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.0.try_lock_range(start, end)
    }

    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.0.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.0.lock_range(start, end)
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.0.lock_shared_range(start, end)
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.0.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.0.query_lock_range(start, end)
    }
}
