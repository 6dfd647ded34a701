//! Multiplication in GF(2¹²⁸), the field of the extension's consistency check: blocks are
//! polynomials over GF(2) of degree below 128 (bit `i` the coefficient of `xⁱ`), reduced
//! modulo `x¹²⁸ + x⁷ + x² + x + 1`.

use crate::gc::Block;

/// `x¹²⁸` reduced: `x⁷ + x² + x + 1`.
const REDUCE: Block = 0x87;

/// `a · b` in GF(2¹²⁸). Constant time in its inputs: no branch on their bits.
pub fn mul(a: Block, b: Block) -> Block {
    let mut acc: Block = 0;
    let mut a = a;
    for i in 0..128 {
        let bit = (b >> i) & 1;
        acc ^= a & bit.wrapping_neg();
        let carry = a >> 127;
        a = (a << 1) ^ (REDUCE & carry.wrapping_neg());
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn x_to_the_128_is_the_reduction() {
        let x = 2u128;
        let x127 = 1u128 << 127;
        assert_eq!(mul(x127, x), REDUCE);
        assert_eq!(mul(1, 0xdead_beef), 0xdead_beef);
        assert_eq!(mul(0, u128::MAX), 0);
        // (x + 1)² = x² + 1 in characteristic 2.
        assert_eq!(mul(3, 3), 5);
    }

    proptest! {
        #[test]
        fn a_field(a in any::<u128>(), b in any::<u128>(), c in any::<u128>()) {
            prop_assert_eq!(mul(a, b), mul(b, a));
            prop_assert_eq!(mul(mul(a, b), c), mul(a, mul(b, c)));
            prop_assert_eq!(mul(a, b ^ c), mul(a, b) ^ mul(a, c));
        }
    }
}
