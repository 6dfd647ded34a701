//! Exit codes and which one wins when several files disagree.

use sealed_protocol::transcript::Checked;

/// Complete and verified.
pub const VERIFIED: i32 = 0;
/// A proven fault.
pub const FAULT: i32 = 1;
/// Unreadable input, or bytes that are not validly signed.
pub const UNREADABLE: i32 = 2;
/// Readable, no fault, but not everything is confirmed.
pub const UNCONFIRMED: i32 = 3;

/// The code for a transcript that could be read and checked: the protocol's own rule
/// ([`Checked::exit_code`]), so that every verifier built on it agrees.
pub fn of_checked(c: &Checked) -> i32 {
    c.exit_code()
}

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
