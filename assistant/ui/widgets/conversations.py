"""The sidebar: the saved conversations, most recent first."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual.message import Message
from textual.widgets import ListItem, ListView, Static

from ...engine import Conversation
from ...safetext import clean


class ConversationItem(ListItem):
    def __init__(self, conversation: Conversation):
        super().__init__(Static(Text(clean(conversation.title), no_wrap=True, overflow="ellipsis")))
        self.conversation = conversation


class ConversationList(ListView):
    """Posts `ConversationList.Chosen` when the person picks a conversation."""

    class Chosen(Message):
        def __init__(self, conversation_id: int):
            super().__init__()
            self.conversation_id = conversation_id

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._updating = asyncio.Lock()

    async def show(self, conversations: list[Conversation], current: int | None) -> None:
        # Removing and mounting items is asynchronous: two overlapping refreshes would
        # interleave, so they take turns.
        async with self._updating:
            await self.clear()
            await self.extend([ConversationItem(conv) for conv in conversations])
            for i, conv in enumerate(conversations):
                if conv.id == current:
                    self.index = i

    def on_list_view_selected(self, event: ListView.Selected) -> None:
        event.stop()
        if isinstance(event.item, ConversationItem):
            self.post_message(self.Chosen(event.item.conversation.id))

    @property
    def highlighted_id(self) -> int | None:
        item = self.highlighted_child
        return item.conversation.id if isinstance(item, ConversationItem) else None
