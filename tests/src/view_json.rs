//! A table's view as JSON, for tests that read it by key as the faces' scripts do
//! (`t.show_json()["hand"]["cards"]`): the games' own surface hands out the typed
//! `TableView`, and the JSON is only ever its serialization.

use sealed_games::table::TableFace;

/// [`TableFace::view`] as JSON.
pub trait ViewJson {
    /// The view, serialized.
    fn show_json(&self) -> serde_json::Value;
}

impl<T: TableFace + ?Sized> ViewJson for T {
    fn show_json(&self) -> serde_json::Value {
        // A view holds strings, integers and booleans under string keys: it always
        // serializes, and a test that found otherwise should fail loudly.
        serde_json::to_value(self.view()).expect("a table's view serializes")
    }
}
