from xo_core.protobuf import events_pb2 as _events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClientEventsSubscribeRequest(_message.Message):
    __slots__ = ("subscriptions", "last_known_block_ids")
    SUBSCRIPTIONS_FIELD_NUMBER: _ClassVar[int]
    LAST_KNOWN_BLOCK_IDS_FIELD_NUMBER: _ClassVar[int]
    subscriptions: _containers.RepeatedCompositeFieldContainer[_events_pb2.EventSubscription]
    last_known_block_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, subscriptions: _Optional[_Iterable[_Union[_events_pb2.EventSubscription, _Mapping]]] = ..., last_known_block_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ClientEventsSubscribeResponse(_message.Message):
    __slots__ = ("status", "response_message")
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[ClientEventsSubscribeResponse.Status]
        OK: _ClassVar[ClientEventsSubscribeResponse.Status]
        INVALID_FILTER: _ClassVar[ClientEventsSubscribeResponse.Status]
        UNKNOWN_BLOCK: _ClassVar[ClientEventsSubscribeResponse.Status]
    STATUS_UNSET: ClientEventsSubscribeResponse.Status
    OK: ClientEventsSubscribeResponse.Status
    INVALID_FILTER: ClientEventsSubscribeResponse.Status
    UNKNOWN_BLOCK: ClientEventsSubscribeResponse.Status
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    status: ClientEventsSubscribeResponse.Status
    response_message: str
    def __init__(self, status: _Optional[_Union[ClientEventsSubscribeResponse.Status, str]] = ..., response_message: _Optional[str] = ...) -> None: ...

class ClientEventsUnsubscribeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClientEventsUnsubscribeResponse(_message.Message):
    __slots__ = ("status",)
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[ClientEventsUnsubscribeResponse.Status]
        OK: _ClassVar[ClientEventsUnsubscribeResponse.Status]
        INTERNAL_ERROR: _ClassVar[ClientEventsUnsubscribeResponse.Status]
    STATUS_UNSET: ClientEventsUnsubscribeResponse.Status
    OK: ClientEventsUnsubscribeResponse.Status
    INTERNAL_ERROR: ClientEventsUnsubscribeResponse.Status
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: ClientEventsUnsubscribeResponse.Status
    def __init__(self, status: _Optional[_Union[ClientEventsUnsubscribeResponse.Status, str]] = ...) -> None: ...

class ClientEventsGetRequest(_message.Message):
    __slots__ = ("subscriptions", "block_ids")
    SUBSCRIPTIONS_FIELD_NUMBER: _ClassVar[int]
    BLOCK_IDS_FIELD_NUMBER: _ClassVar[int]
    subscriptions: _containers.RepeatedCompositeFieldContainer[_events_pb2.EventSubscription]
    block_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, subscriptions: _Optional[_Iterable[_Union[_events_pb2.EventSubscription, _Mapping]]] = ..., block_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ClientEventsGetResponse(_message.Message):
    __slots__ = ("status", "events")
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSET: _ClassVar[ClientEventsGetResponse.Status]
        OK: _ClassVar[ClientEventsGetResponse.Status]
        INTERNAL_ERROR: _ClassVar[ClientEventsGetResponse.Status]
        INVALID_FILTER: _ClassVar[ClientEventsGetResponse.Status]
        UNKNOWN_BLOCK: _ClassVar[ClientEventsGetResponse.Status]
    STATUS_UNSET: ClientEventsGetResponse.Status
    OK: ClientEventsGetResponse.Status
    INTERNAL_ERROR: ClientEventsGetResponse.Status
    INVALID_FILTER: ClientEventsGetResponse.Status
    UNKNOWN_BLOCK: ClientEventsGetResponse.Status
    STATUS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    status: ClientEventsGetResponse.Status
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.Event]
    def __init__(self, status: _Optional[_Union[ClientEventsGetResponse.Status, str]] = ..., events: _Optional[_Iterable[_Union[_events_pb2.Event, _Mapping]]] = ...) -> None: ...
