//! Exit codes and which one wins when several files disagree.

/// The codes, where a checked file's is computed (`sealed_node::checked`).
pub use sealed_node::checked::{FAULT, UNCONFIRMED, UNREADABLE, VERIFIED};

/// How bad a code is. A proven fault outranks unreadable input because signed evidence
/// stands whatever else sits beside it; an unreadable file outranks an unconfirmed one
/// because nothing at all could be said about it.
fn severity(code: i32) -> u8 {
    match code {
        FAULT => 3,
        UNREADABLE => 2,
        UNCONFIRMED => 1,
        VERIFIED => 0,
        // A code outside the contract can only come from a bug; never let it pass as
        // success.
        _ => 2,
    }
}

/// The worst of several codes; `VERIFIED` when there are none.
pub fn worst(codes: impl IntoIterator<Item = i32>) -> i32 {
    codes
        .into_iter()
        .max_by_key(|c| severity(*c))
        .unwrap_or(VERIFIED)
}

/// A few words for a code, as the reports print it.
pub fn meaning(code: i32) -> &'static str {
    match code {
        VERIFIED => "complete and verified",
        FAULT => "proven fault",
        UNREADABLE => "unreadable, or content that does not check",
        UNCONFIRMED => "unconfirmed",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_fault_unreadable_unconfirmed_verified() {
        assert_eq!(worst([0, 3, 2, 1]), 1);
        assert_eq!(worst([3, 2, 0]), 2);
        assert_eq!(worst([0, 3, 0]), 3);
        assert_eq!(worst([0, 0]), 0);
        assert_eq!(worst([]), 0);
    }
}
