//! Reading input files with a size cap.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Reads at most `cap` bytes of a file. Refusing larger files keeps a huge or endless
/// input (a device, a FIFO) from exhausting memory, which matters when many files are
/// read in parallel.
pub fn read_capped(path: &Path, cap: usize) -> Result<Vec<u8>, String> {
    let file = File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let mut bytes = vec![];
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() > cap {
        return Err(format!("larger than the {cap}-byte limit"));
    }
    Ok(bytes)
}
