//! A sync message's bytes as a node reads them (spec/PROTOCOL.md §16.2): its items
//! counted from the bytes before decoding (`sealed_node::sync::request_items`), then
//! decoded. Whatever decodes must have been walked, and the walk must never count more
//! than the message can hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sealed_node::sync::{
    MAX_ITEMS, MAX_SYNC_MESSAGE, Request, Response, request_items, response_items,
};

fuzz_target!(|data: &[u8]| {
    let req = request_items(data);
    if let Ok(n) = req {
        assert!(n <= MAX_ITEMS);
    }
    if sealed_protocol::wire::decode::<Request>(data, MAX_SYNC_MESSAGE).is_ok() {
        assert!(req.is_ok(), "a request that decodes was refused: {req:?}");
    }
    let resp = response_items(data);
    if sealed_protocol::wire::decode::<Response>(data, MAX_SYNC_MESSAGE).is_ok() {
        assert!(
            resp.is_ok(),
            "a response that decodes was refused: {resp:?}"
        );
    }
});
