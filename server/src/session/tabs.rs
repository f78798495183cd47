//! `tabs`: the session's tabs listed, opened, switched to and closed.
//! Invariant: a session always has a tab (closing the last opens an empty
//! one), and a closed tab's refs are forgotten.

use whittle_engine::{FoldOptions, compact_url};

use super::{Fail, Session, ToolOutput, invalid_args, with_notices};
use crate::backend::BrowseError;
use crate::tools::{TabOp, TabsArgs};

impl Session {
    pub(super) async fn tabs(&mut self, args: TabsArgs) -> Result<ToolOutput, Fail> {
        match args.op {
            TabOp::List => {
                let text = self.tab_list();
                self.answer("tabs", text).await
            }
            TabOp::Open => {
                let nav = match &args.url {
                    Some(u) => Some(self.navigation(u)?),
                    None => None,
                };
                let index = self.open_tab().await?;
                let previous = self.active;
                self.active = index;
                if let Some(nav) = nav
                    && let Err(e) = self.tab().page.navigate(nav, false).await
                {
                    // The tab stays open (empty); say why it is.
                    self.active = previous;
                    return Err(BrowseError::new(e.code, format!("tab {} opened but did not load: {}", index + 1, e.message)));
                }
                let mut text = format!("⧉ tab {} opened (now active)\n", index + 1);
                if self.tab().page.url().is_some() {
                    let (obs, envelope) = self.view("tabs", &FoldOptions::default()).await?;
                    text.push_str(&with_notices(&obs.text(), &envelope));
                    return Ok(ToolOutput { text, envelope, image: None });
                }
                self.answer("tabs", text).await
            }
            TabOp::Switch => {
                let i = self.tab_index(args.index)?;
                self.active = i;
                if self.tab().page.url().is_none() {
                    return self.answer("tabs", format!("tab {} is empty: navigate somewhere", i + 1)).await;
                }
                let (obs, envelope) = self.view("tabs", &FoldOptions::default()).await?;
                Ok(ToolOutput { text: with_notices(&obs.text(), &envelope), envelope, image: None })
            }
            TabOp::Close => {
                let i = match args.index {
                    Some(_) => self.tab_index(args.index)?,
                    None => self.active,
                };
                let tab = self.tabs.remove(i);
                if let Some(doc) = tab.page.document_id() {
                    self.refs.forget(doc);
                }
                if self.tabs.is_empty() {
                    self.active = 0;
                    self.open_tab().await?;
                } else if self.active > i || self.active >= self.tabs.len() {
                    self.active = self.active.saturating_sub(1);
                }
                let text = format!("tab {} closed\n{}", i + 1, self.tab_list());
                self.answer("tabs", text).await
            }
        }
    }

    fn tab_index(&self, index: Option<u32>) -> Result<usize, Fail> {
        let Some(n) = index else { return Err(invalid_args("index is required (see tabs op:list)")) };
        let i = (n as usize).wrapping_sub(1);
        if i >= self.tabs.len() {
            return Err(invalid_args(format!("no tab {n}: there are {} (numbered from 1)", self.tabs.len())));
        }
        Ok(i)
    }

    /// One line per tab: `* 1 title · compact url` (`*` the active one).
    fn tab_list(&self) -> String {
        let mut out = String::new();
        for (i, t) in self.tabs.iter().enumerate() {
            let mark = if i == self.active { '*' } else { ' ' };
            let url = t.page.url().map(compact_url).unwrap_or_else(|| "(empty)".into());
            out.push_str(&format!("{mark} {} {url}\n", i + 1));
        }
        out
    }
}
