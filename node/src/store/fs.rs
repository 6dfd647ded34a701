//! The store's file and folder, owner-only, and the folder's fsync.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

use super::error::StoreError;

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(unix)]
pub(super) fn private_dir(dir: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_error(dir))?;
    // The umask may have narrowed the mode further, and an existing directory keeps its
    // own: set it exactly, but only when needed, so a directory we may not chmod but that
    // is already private is accepted.
    let mode = std::fs::metadata(dir)
        .map_err(io_error(dir))?
        .permissions()
        .mode();
    if mode & 0o777 != 0o700 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(io_error(dir))?;
    }
    Ok(())
}

#[cfg(not(unix))]
pub(super) fn private_dir(dir: &Path) -> Result<(), StoreError> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))
}

#[cfg(unix)]
pub(super) fn private_file(path: &Path) -> Result<File, StoreError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    // Created 0600 from the start, so the file is never readable by others, not even
    // between its creation and a chmod.
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
        .map_err(io_error(path))?;
    let mode = file
        .metadata()
        .map_err(io_error(path))?
        .permissions()
        .mode();
    if mode & 0o777 != 0o600 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(io_error(path))?;
    }
    Ok(file)
}

#[cfg(not(unix))]
pub(super) fn private_file(path: &Path) -> Result<File, StoreError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io_error(path))
}

#[cfg(unix)]
pub(super) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_error(dir))
}

#[cfg(not(unix))]
pub(super) fn sync_dir(_dir: &Path) -> Result<(), StoreError> {
    // Windows has no directory handle to fsync; NTFS journals the name itself.
    Ok(())
}
