from django.urls import path

from live import offline, stream

urlpatterns = [
    path("sw.js", offline.service_worker, name="service_worker"),
    path("offline/", offline.offline_page, name="offline_page"),
    path("c/<int:campaign_id>/events/", stream.events, name="campaign_events"),
    path("c/<int:campaign_id>/events/poll", stream.poll, name="campaign_events_poll"),
]
