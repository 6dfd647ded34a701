//! The `sealed` command line.
fn main() {}
